/**
 * The one way an account comes into being (spec "Authentication", 2: publishing needs an account
 * on the node): the operator's command line (`lr-node account add`, `npm run account`), the first
 * web sign-in at /auth, the network script and the tests all call {@link createAccount}, so every
 * account document has the same shape and every password the same KDF (src/domain/password.ts).
 * Password strength is checked where a person chooses the password (command line, /auth page).
 */
import { hashPassword } from '../../domain/password.js';
import { ACCOUNT_NAME, type Account, type AccountRepository, type AccountRole, type WebIdentity } from '../../storage/account-repository.js';
import { badRequest } from '../../errors/app-error.js';

export const ACCOUNT_ROLES: readonly AccountRole[] = ['publisher', 'network_admin'];

export interface NewAccount {
  name: string;
  /** Default: publisher. */
  roles?: readonly AccountRole[];
  /** identity.submitter of what the account publishes; default: the name. */
  submitter?: string;
  /** A publishing password, hashed here; none for a web account until its owner sets one. */
  password?: string;
  web?: WebIdentity;
}

/** Creates the account; an account of that name existing already is a 409 `conflict`. */
export async function createAccount(accounts: AccountRepository, request: NewAccount, now: Date = new Date()): Promise<Account> {
  if (!ACCOUNT_NAME.test(request.name)) throw badRequest('an account name is letters, digits and . _ @ + - (at most 64)');
  const roles = [...new Set(request.roles && request.roles.length > 0 ? request.roles : ['publisher' as const])];
  const unknown = roles.find((role) => !ACCOUNT_ROLES.includes(role));
  if (unknown !== undefined) throw badRequest(`unknown role ${String(unknown)}: ${ACCOUNT_ROLES.join(' or ')}`);
  const time = now.toISOString();
  const account: Account = {
    name: request.name,
    roles,
    submitter: request.submitter ?? request.name,
    disabled: false,
    ...(request.password !== undefined ? { password: await hashPassword(request.password) } : {}),
    ...(request.web ? { web: request.web, tokens: [] } : {}),
    created: time,
    updated: time,
  };
  await accounts.create(account);
  return account;
}
