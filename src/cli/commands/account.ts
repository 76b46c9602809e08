/**
 * lr-node account add|list|passwd|disable|enable|remove|oauth|oauth-revoke: the accounts of the publish service, kept in the
 * node's accounts database (the running node's embedded store, a stopped node's, or COUCHDB_URL;
 * never a store no node has started on: store-connection.ts).
 * Passwords come from a no-echo prompt (asked twice) or standard input, never from arguments.
 */
import { AccountRepository, ACCOUNT_NAME, type Account, type AccountRole } from '../../storage/account-repository.js';
import { MAX_OAUTH_CREDENTIALS, newOAuthCredential } from '../../services/auth/oauth1.js';
import { ACCOUNT_ROLES, createAccount } from '../../services/auth/accounts.service.js';
import { hashPassword } from '../../domain/password.js';
import { passwordWeakness } from '../../domain/password-strength.js';
import { withToolStore } from '../store-connection.js';
import { INSTEAD_OF_PROMPT, readHidden, readStdin } from '../credentials.js';
import { CliError, usageError } from '../errors.js';

export type AccountAction = 'add' | 'list' | 'passwd' | 'disable' | 'enable' | 'remove' | 'oauth' | 'oauth-revoke';
export interface AccountOptions { roles?: string[]; submitter?: string; passwordStdin?: boolean; json?: boolean; label?: string; token?: string }

async function readNewPassword(name: string, fromStdin: boolean): Promise<string> {
  const password = fromStdin ? await readStdin() : await readHidden(`password for ${name}: `, INSTEAD_OF_PROMPT.store);
  const weakness = passwordWeakness(password, name);
  if (weakness) throw new CliError(weakness);
  if (!fromStdin && (await readHidden('again: ', INSTEAD_OF_PROMPT.store)) !== password) throw new CliError('the passwords differ');
  return password;
}

function checkedRoles(roles: string[] | undefined): AccountRole[] {
  const chosen = [...new Set(roles && roles.length > 0 ? roles : ['publisher'])];
  for (const role of chosen) {
    if (!ACCOUNT_ROLES.includes(role as AccountRole)) throw usageError(`--role must be ${ACCOUNT_ROLES.join(' or ')} (give it once per role): ${role}`);
  }
  return chosen as AccountRole[];
}

export async function account(action: AccountAction, name: string | undefined, options: AccountOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (action !== 'list' && (!name || !ACCOUNT_NAME.test(name))) throw usageError('give an account name: letters, digits and . _ @ + - (at most 64)');
  const roles = action === 'add' ? checkedRoles(options.roles) : [];
  await withToolStore(env, 'account', async (couch, names) => {
    const accounts = new AccountRepository(couch, names);
    const now = new Date().toISOString();
    if (action === 'list') {
      const listed = await accounts.list();
      if (options.json) {
        process.stdout.write(`${JSON.stringify(listed.map((a) => ({ name: a.name, roles: a.roles, disabled: a.disabled, submitter: a.submitter, created: a.created, updated: a.updated })))}\n`);
        return;
      }
      for (const a of listed) process.stdout.write(`${a.name}\t${a.roles.join(',')}\t${a.disabled ? 'disabled' : 'enabled'}\tsubmitter=${a.submitter}\n`);
      return;
    }
    const accountName = name as string;
    if (action === 'add') {
      const password = await readNewPassword(accountName, options.passwordStdin === true);
      await createAccount(accounts, { name: accountName, roles, ...(options.submitter !== undefined ? { submitter: options.submitter } : {}), password });
      process.stdout.write(`account ${accountName} added (${roles.join(',')})\n`);
      return;
    }
    const found = await accounts.find(accountName);
    if (!found) throw new CliError(`no account ${accountName}`);
    if (action === 'remove') {
      // The documents it published stay: they are the network's, and their owner field keeps the name.
      await accounts.remove(found);
      process.stdout.write(`account ${accountName} removed (the documents it published stay)\n`);
      return;
    }
    if (action === 'oauth' || action === 'oauth-revoke') {
      await oauthCredentials(accounts, found, action, options, now);
      return;
    }
    if (action === 'passwd') found.password = await hashPassword(await readNewPassword(accountName, options.passwordStdin === true));
    else found.disabled = action === 'disable';
    found.updated = now;
    await accounts.update(found);
    process.stdout.write(`account ${accountName}: ${action === 'passwd' ? 'password changed' : `${action}d`}\n`);
  });
}

/** Issues (shown once) or revokes OAuth 1.0 credentials (src/services/auth/oauth1.ts). */
async function oauthCredentials(accounts: AccountRepository, found: Account, action: 'oauth' | 'oauth-revoke', options: AccountOptions, now: string): Promise<void> {
  const held = found.oauth ?? [];
  if (action === 'oauth-revoke') {
    if (!held.some((record) => record.token === options.token)) throw new CliError(`account ${found.name} has no OAuth token ${String(options.token)}`);
    await accounts.update({ ...found, oauth: held.filter((record) => record.token !== options.token), updated: now });
    process.stdout.write(`account ${found.name}: OAuth token ${String(options.token)} revoked\n`);
    return;
  }
  if (held.length >= MAX_OAUTH_CREDENTIALS) throw new CliError(`account ${found.name} holds ${MAX_OAUTH_CREDENTIALS} OAuth credentials already: revoke one first (oauth-revoke)`);
  const { shown, record } = newOAuthCredential(found.name, options.label ?? 'command line', now);
  await accounts.update({ ...found, oauth: [...held, record], updated: now });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(shown)}\n`);
    return;
  }
  process.stdout.write(`OAuth 1.0 credentials of ${found.name} (shown once; sign with HMAC-SHA1 or HMAC-SHA256 in the Authorization header):\n`);
  for (const [key, value] of Object.entries(shown)) process.stdout.write(`${key}\t${value}\n`);
}
