/**
 * Secrets for lr-node: read from a terminal without echo or from standard input, never taken
 * from arguments of the account commands and never printed.
 */
import { basicAuthorization } from '../net/basic-authorization.js';
import { usageError } from './errors.js';

export async function readStdin(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) data += String(chunk);
  return data.replace(/\r?\n$/, '');
}

/**
 * What works instead of the prompt, named by the message of a command run without a terminal: a
 * client command takes LR_PASSWORD too; the account and destination commands take standard input
 * only (README: account passwords never come from the environment or arguments).
 */
export const INSTEAD_OF_PROMPT = { client: '--password-stdin or LR_PASSWORD', store: '--password-stdin' } as const;

// Ours: the one prompt library installed (prompts, dependency-cruiser's) draws its own symbols and colours around the prompt.
export async function readHidden(prompt: string, instead: string): Promise<string> {
  if (!process.stdin.isTTY) throw usageError(`no terminal to read the password from: use ${instead}`);
  // Echo off before the prompt shows: a password typed or pasted the moment the prompt appears
  // would otherwise be echoed by the terminal (seen once in CI, where the test answers the prompt
  // as soon as it reads it).
  process.stdin.setRawMode(true);
  process.stderr.write(prompt);
  process.stdin.resume();
  let password = '';
  return new Promise((resolve, reject) => {
    const done = (): void => { process.stdin.setRawMode(false); process.stdin.pause(); process.stdin.off('data', onData); };
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          done();
          process.stderr.write('\n');
          resolve(password);
          return;
        }
        if (char === '\u0003') { done(); reject(usageError('cancelled')); return; }
        if (char === '\u007f') password = password.slice(0, -1);
        else password += char;
      }
    };
    process.stdin.on('data', onData);
  });
}

export interface CredentialOptions { user?: string; password?: string; passwordStdin?: boolean }

/**
 * The Basic credential of a client command: user from --user or LR_USER, password from --password,
 * LR_PASSWORD, standard input (--password-stdin) or a no-echo prompt. Undefined when no user is
 * given (the node may not require one).
 */
export async function clientAuthorization(options: CredentialOptions, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const user = options.user ?? env.LR_USER;
  if (!user) {
    if (options.password || options.passwordStdin) throw usageError('a password was given without a user: add --user or LR_USER');
    return undefined;
  }
  const password = options.password ?? env.LR_PASSWORD ?? (options.passwordStdin ? await readStdin() : await readHidden(`password for ${user}: `, INSTEAD_OF_PROMPT.client));
  return basicAuthorization(user, password);
}
