/**
 * npm run account -- add NAME [--role publisher|network_admin] [--submitter TEXT] [--password-stdin]
 * npm run account -- passwd NAME [--password-stdin]
 * npm run account -- list | disable NAME | enable NAME
 *
 * Passwords are read from the terminal without echo, or from standard input (--password-stdin),
 * never from the command line (it would land in shell history and the process list).
 */
import { loadConfig, ConfigError } from '../src/config/index.js';
import { connectForTool } from '../src/cli/store-connection.js';
import { databaseNames } from '../src/storage/databases.js';
import { ensureDatabases } from '../src/storage/bootstrap.js';
import { AccountRepository, ACCOUNT_NAME, type AccountRole } from '../src/storage/account-repository.js';
import { hashPassword, passwordWeakness } from '../src/domain/password.js';

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function readStdin(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) data += String(chunk);
  return data.replace(/\r?\n$/, '');
}

async function readHidden(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) throw new Error('no terminal to read the password from: use --password-stdin');
  process.stderr.write(prompt);
  process.stdin.setRawMode(true);
  process.stdin.resume();
  let password = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          process.stdin.setRawMode(false); process.stdin.pause(); process.stdin.off('data', onData);
          process.stderr.write('\n');
          resolve(password);
          return;
        }
        if (char === '\u0003') { process.stdin.setRawMode(false); reject(new Error('cancelled')); return; }
        if (char === '\u007f') password = password.slice(0, -1);
        else password += char;
      }
    };
    process.stdin.on('data', onData);
  });
}

async function readPassword(args: string[], name: string): Promise<string> {
  const password = args.includes('--password-stdin') ? await readStdin() : await readHidden(`password for ${name}: `);
  const weakness = passwordWeakness(password, name);
  if (weakness) throw new Error(weakness);
  if (!args.includes('--password-stdin')) {
    const again = await readHidden('again: ');
    if (again !== password) throw new Error('the passwords differ');
  }
  return password;
}

async function main(): Promise<void> {
  const [command, name, ...rest] = process.argv.slice(2);
  const config = loadConfig(process.env);
  const connection = await connectForTool(config.settings);
  try {
    const names = databaseNames(config.settings.dbPrefix);
    await ensureDatabases(connection.couch, names);
    const accounts = new AccountRepository(connection.couch, names);
    const now = new Date().toISOString();
    if (command === 'list') {
      for (const account of await accounts.list()) {
        process.stdout.write(`${account.name}\t${account.roles.join(',')}\t${account.disabled ? 'disabled' : 'enabled'}\tsubmitter=${account.submitter}\n`);
      }
      return;
    }
    if (!name || !ACCOUNT_NAME.test(name)) throw new Error('give an account name: letters, digits and . _ @ + - (at most 64)');
    const args = [name, ...rest];
    if (command === 'add') {
      const role = (option(args, '--role') ?? 'publisher') as AccountRole;
      if (role !== 'publisher' && role !== 'network_admin') throw new Error('--role must be publisher or network_admin');
      const password = await hashPassword(await readPassword(args, name));
      await accounts.create({ name, roles: [role], submitter: option(args, '--submitter') ?? name, disabled: false, password, created: now, updated: now });
      process.stdout.write(`account ${name} added (${role})\n`);
    } else if (command === 'passwd' || command === 'disable' || command === 'enable') {
      const account = await accounts.find(name);
      if (!account) throw new Error(`no account ${name}`);
      if (command === 'passwd') account.password = await hashPassword(await readPassword(args, name));
      else account.disabled = command === 'disable';
      account.updated = now;
      await accounts.update(account);
      process.stdout.write(`account ${name}: ${command === 'passwd' ? 'password changed' : `${command}d`}\n`);
    } else {
      throw new Error('usage: npm run account -- add|passwd|disable|enable NAME | list');
    }
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `account: ${error instanceof Error ? error.message : String(error)}`}\n`);
  process.exit(1);
});
