/**
 * lr-node: the command line of operators (start, status, services, account, destination, config, distribute),
 * publishers (publish, verify) and harvesters (harvest), on commander.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../config/index.js';
import { softwareVersion } from '../config/software-version.js';
import type { AccountAction, AccountOptions } from './commands/account.js';
import type { DestinationAction, DestinationOptions } from './commands/destination.js';
import { distribute } from './commands/distribute.js';
import { harvest } from './commands/harvest.js';
import { services, status } from './commands/node-info.js';
import type { PublishOptions } from './commands/publish.js';
import type { VerifyOptions } from './commands/verify.js';
import { clientAuthorization } from './credentials.js';
import { usageError } from './errors.js';
import { EXIT, exitCodeOf, type ExitCode } from '../errors/exit-codes.js';
import { DEFAULT_RETRY, type RetryPolicy } from './http-client.js';

// The heavy commands (the node, the store, openpgp) are loaded only when they run, so that
// `lr-node status` or `--help` starts quickly.
const start = async (options: { sampleData: boolean }): Promise<void> => (await import('./commands/start.js')).start(options);
const account = async (action: AccountAction, name: string | undefined, options: AccountOptions): Promise<void> => (await import('./commands/account.js')).account(action, name, options);
const showConfig = async (): Promise<void> => (await import('./commands/config.js')).showConfig();
const destination = async (action: DestinationAction, url: string | undefined, options: DestinationOptions): Promise<void> => (await import('./commands/destination.js')).destination(action, url, options);
const publish = async (options: PublishOptions): Promise<ExitCode> => (await import('./commands/publish.js')).publish(options);
const verify = async (options: VerifyOptions): Promise<ExitCode> => (await import('./commands/verify.js')).verify(options);

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const positiveInt = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('a positive whole number');
  return Number(value);
};
const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number');
  return Number(value);
};
/** An OAI-PMH / LR date: YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (spec "Basic Harvest", granularity). */
const harvestDate = (value: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/.test(value)) throw new InvalidArgumentError('YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ');
  return value;
};

interface CommonOptions { json?: boolean; retries: number; timeout: number }
interface CredentialFlags { user?: string; password?: string; passwordStdin?: boolean }

function policyOf(options: CommonOptions): RetryPolicy {
  return { ...DEFAULT_RETRY, retries: options.retries, timeoutMs: options.timeout * 1000 };
}

function withCommon(command: Command): Command {
  return command
    .option('--json', 'print the result as JSON (no progress output)')
    .option('--retries <n>', 'retries on network errors and 429/502/503/504, with backoff honouring Retry-After', wholeNumber, DEFAULT_RETRY.retries)
    .option('--timeout <seconds>', 'deadline of one HTTP request', positiveInt, DEFAULT_RETRY.timeoutMs / 1000);
}

function withCredentials(command: Command, role: string): Command {
  return command
    .option('-u, --user <name>', `account name (${role}); default: LR_USER`)
    .option('--password <password>', 'password (visible in the process list: prefer LR_PASSWORD, --password-stdin or the prompt)')
    .option('--password-stdin', 'read the password from standard input');
}

/**
 * A URL argument that holds credentials (`http://user:password@host`) is refused before the
 * command does anything: it would be printed in messages and kept in state files. The message
 * does not repeat it. Credentials go by --user/LR_USER and a prompt, --password-stdin or LR_PASSWORD.
 */
function refuseCredentialUrls(args: unknown[]): void {
  for (const arg of args.flat()) {
    if (typeof arg !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) continue;
    let url: URL;
    try {
      url = new URL(arg);
    } catch {
      continue; // not a URL after all: the command says what is wrong with it
    }
    if (url.username || url.password) {
      url.username = ''; url.password = '';
      throw usageError(`give the URL without credentials (${url.origin}): they would be printed and stored; use --user or LR_USER with a prompt, --password-stdin or LR_PASSWORD`);
    }
  }
}

/** The whole program; `exit` receives the exit code of the command. */
export function buildProgram(exit: (code: ExitCode) => void): Command {
  const program = new Command('lr-node')
    .description('Learning Registry node: run it, manage its accounts, publish to and harvest from any node')
    .version(softwareVersion(), '-V, --version', 'print the version of lr-node')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  const run = <A extends unknown[]>(name: string, action: (...args: A) => Promise<ExitCode | void>) => async (...args: A): Promise<void> => {
    try {
      refuseCredentialUrls(args);
      exit((await action(...args)) ?? EXIT.ok);
    } catch (error) {
      exit(report(name, error));
    }
  };

  program.command('start')
    .description('run the node (what npm start runs); settings come from the environment (see README, Configuration)')
    .option('--sample-data', 'publish the 100-document NSDL sample corpus at the first start')
    .action(run('start', (options: { sampleData?: boolean }) => start({ sampleData: options.sampleData === true })));

  withCommon(program.command('status').argument('<url>', 'node URL').description('the node\'s /status: counts, sync times, outcome per destination'))
    .action(run('status', (url: string, options: CommonOptions) => status(url, options.json === true, policyOf(options))));
  withCommon(program.command('services').argument('<url>', 'node URL').description('the node\'s /services: each service, its endpoint, authentication and limits'))
    .action(run('services', (url: string, options: CommonOptions) => services(url, options.json === true, policyOf(options))));

  const accounts = program.command('account').description('accounts of the publish service (run where the node\'s DATA_DIR or COUCHDB_URL is)');
  const accountCommand = (action: AccountAction, description: string): Command => accounts.command(action).description(description);
  accountCommand('add', 'add an account; the password is asked twice without echo, or read from standard input')
    .argument('<name>').option('--role <role>', 'publisher or network_admin; repeat for several roles (default publisher)', collect, [])
    .option('--submitter <text>', 'identity.submitter of what the account publishes (default: the name)')
    .option('--password-stdin', 'read the password from standard input')
    .action(run('account', (name: string, options: { role: string[]; submitter?: string; passwordStdin?: boolean }) =>
      account('add', name, { roles: options.role, ...(options.submitter ? { submitter: options.submitter } : {}), passwordStdin: options.passwordStdin === true })));
  accountCommand('list', 'list accounts: name, roles, enabled or disabled, submitter').option('--json', 'as JSON')
    .action(run('account', (options: { json?: boolean }) => account('list', undefined, { json: options.json === true })));
  accountCommand('passwd', 'change an account\'s password').argument('<name>').option('--password-stdin', 'read the password from standard input')
    .action(run('account', (name: string, options: { passwordStdin?: boolean }) => account('passwd', name, { passwordStdin: options.passwordStdin === true })));
  accountCommand('disable', 'refuse the account\'s credentials from now on').argument('<name>')
    .action(run('account', (name: string) => account('disable', name, {})));
  accountCommand('enable', 'accept a disabled account again').argument('<name>')
    .action(run('account', (name: string) => account('enable', name, {})));
  accountCommand('remove', 'delete the account: its password, tokens and /auth sessions are refused from now on; the documents it published stay').argument('<name>')
    .action(run('account', (name: string) => account('remove', name, {})));
  accountCommand('oauth', 'issue OAuth 1.0 credentials (consumer key and secret, token and secret: shown once) for publishing as the account, as the original node\'s publishers sign requests')
    .argument('<name>').option('--label <text>', 'what the credentials are for', 'command line').option('--json', 'as JSON')
    .action(run('account', (name: string, options: { label: string; json?: boolean }) => account('oauth', name, { label: options.label, json: options.json === true })));
  accountCommand('oauth-revoke', 'refuse the OAuth 1.0 credentials of this token from now on').argument('<name>').argument('<token>')
    .action(run('account', (name: string, token: string) => account('oauth-revoke', name, { token })));

  const destinations = program.command('destination').description('credentials this node presents to a destination when it distributes (run where the node\'s DATA_DIR or COUCHDB_URL is)');
  destinations.command('set').description('set the destination\'s network_admin account; the password is asked twice without echo, or read from standard input')
    .argument('<url>', 'the destination_node_url of a connection').requiredOption('--user <name>', 'a network_admin account of the destination')
    .option('--password-stdin', 'read the password from standard input')
    .action(run('destination', (url: string, options: { user: string; passwordStdin?: boolean }) => destination('set', url, { user: options.user, passwordStdin: options.passwordStdin === true })));
  destinations.command('remove').description('forget the credentials for a destination').argument('<url>')
    .action(run('destination', (url: string) => destination('remove', url, {})));
  destinations.command('list').description('each destination with credentials, and its user (never the password)').option('--json', 'as JSON')
    .action(run('destination', (options: { json?: boolean }) => destination('list', undefined, { json: options.json === true })));

  program.command('config').description('the CONFIG kept in the node database (run where the node\'s DATA_DIR or COUCHDB_URL is)')
    .command('show').description('print the CONFIG an earlier start was given, which a start without CONFIG applies, as JSON: edit it and start with CONFIG=FILE')
    .action(run('config', () => showConfig()));

  withCredentials(withCommon(program.command('publish')), 'publisher')
    .description('publish documents in batches within the node\'s doc_limit and msg_size_limit; resumable')
    .argument('<url>', 'node URL').argument('<files...>', 'JSON ({"documents": [...]} or an array) or JSON Lines files')
    .option('--sign-key <file>', 'sign each document (LR-PGP.1.0) with this armored private key; passphrase from LR_KEY_PASSPHRASE')
    .option('--key-location <url>', 'where verifiers fetch the public key (repeatable; required with --sign-key)', collect, [])
    .option('--state <file>', 'what the node acknowledged, for resuming', 'lr-publish.state.json')
    .option('--report <file>', 'rejected documents with their errors, JSON Lines', 'lr-publish.rejected.jsonl')
    .option('--batch-size <n>', 'documents per request, at most the node\'s doc_limit', positiveInt)
    .action(run('publish', async (url: string, files: string[], options: CommonOptions & CredentialFlags & { signKey?: string; keyLocation: string[]; state: string; report: string; batchSize?: number }) => publish({
      url, files, authorization: await clientAuthorization(options),
      keyLocation: options.keyLocation, state: options.state, report: options.report, json: options.json === true, policy: policyOf(options),
      ...(options.signKey ? { signKey: options.signKey } : {}),
      ...(process.env.LR_KEY_PASSPHRASE ? { keyPassphrase: process.env.LR_KEY_PASSPHRASE } : {}),
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    })));

  withCommon(program.command('harvest'))
    .description('harvest every record to JSON Lines through the JSON harvest or OAI-PMH (any provider); resumable')
    .argument('<url>', 'node URL (or an OAI-PMH base URL with --via oai)')
    .requiredOption('-o, --out <file>', 'JSON Lines output, one record a line')
    .addOption(new Option('--via <protocol>', 'json: /harvest/listrecords; oai: OAI-PMH ListRecords').choices(['json', 'oai']).default('json'))
    .option('--prefix <metadataPrefix>', 'OAI-PMH metadata format (LR_JSON_0.10.0 gives whole documents)', 'oai_dc')
    .option('--from <date>', 'records from this date', harvestDate)
    .option('--until <date>', 'records up to this date', harvestDate)
    .option('--state <file>', 'last resumption token, for resuming (default: OUT.state.json)')
    .option('--overwrite', 'start again from the first page, replacing the output file and its state')
    .action(run('harvest', (url: string, options: CommonOptions & { out: string; via: 'json' | 'oai'; prefix: string; from?: string; until?: string; state?: string; overwrite?: boolean }) => harvest({
      query: { url, via: options.via, prefix: options.via === 'oai' ? options.prefix : '', ...(options.from ? { from: options.from } : {}), ...(options.until ? { until: options.until } : {}) },
      out: options.out, overwrite: options.overwrite === true, json: options.json === true, policy: policyOf(options),
      ...(options.state ? { state: options.state } : {}),
    })));

  withCredentials(withCommon(program.command('distribute')), 'network_admin')
    .description('start distribution to the node\'s connections and print the outcome per destination; exit 1 if any failed or was unreachable')
    .argument('<url>', 'node URL')
    .action(run('distribute', async (url: string, options: CommonOptions & CredentialFlags) =>
      distribute(url, await clientAuthorization(options), options.json === true, policyOf(options))));

  program.command('verify')
    .description('check the LR-PGP.1.0 signature of each document of the files; exit 1 if any fails')
    .argument('<files...>', 'JSON, JSON Lines or lr-node harvest output')
    .option('--key <file>', 'armored public key (repeatable); default: fetched from each document\'s key_location', collect, [])
    .option('--allow-private', 'allow key locations on loopback or private addresses')
    .option('--json', 'one JSON object a document')
    .action(run('verify', (files: string[], options: { key: string[]; allowPrivate?: boolean; json?: boolean }) =>
      verify({ files, keys: options.key, allowPrivate: options.allowPrivate === true, json: options.json === true })));
  return program;
}

/** One clear line on standard error; the exit code says what kind of failure it was. */
function report(command: string, error: unknown): ExitCode {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${command}: ${error instanceof Error ? error.message : String(error)}\n`);
  return exitCodeOf(error);
}

/** Runs lr-node with these arguments (without the node and script paths). */
export async function runCli(argv: string[]): Promise<void> {
  let code: ExitCode | undefined;
  const program = buildProgram((exitCode) => { code = exitCode; });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) { process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage; return; }
    process.exitCode = report('lr-node', error);
    return;
  }
  if (code !== undefined) process.exitCode = code;
}


