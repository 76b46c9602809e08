/**
 * HTTP Basic authentication of node accounts (spec "Authentication", 2 and 3). Checking a
 * password costs a slow KDF, so a successful check is remembered for a minute in this process,
 * keyed by an HMAC of the credentials and the account document's revision: a changed password or
 * a disabled account invalidates it at once. Nothing here is needed by another node process.
 * Bearer tokens issued at /auth ("switching to OAuth", RFC 6750) are accepted in the same place.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Account, AccountRepository, AccountRole } from '../storage/account-repository.js';
import { verifyPassword } from '../domain/password.js';
import { AppError } from '../errors/app-error.js';
import { parseBearerToken, tokenMatches } from '../services/auth/bearer-token.js';

export interface Credentials { user: string; password: string }

export function parseBasicAuth(header: string | undefined): Credentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const CACHE_MS = 60_000;
const CACHE_MAX = 1000;

export class Authenticator {
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, number>();

  constructor(private readonly accounts: AccountRepository) {}

  /** The account for these credentials, or undefined when they are wrong or the account is disabled. */
  async authenticate(credentials: Credentials | undefined): Promise<Account | undefined> {
    if (!credentials) return undefined;
    const account = await this.accounts.find(credentials.user);
    if (!account || account.disabled || !account.password) return undefined;
    const key = createHmac('sha256', this.cacheKey).update(`${account.rev ?? ''}\0${credentials.user}\0${credentials.password}`).digest('base64');
    const until = this.verified.get(key);
    if (until !== undefined && until > Date.now()) return account;
    if (!(await verifyPassword(credentials.password, account.password))) return undefined;
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(key, Date.now() + CACHE_MS);
    return account;
  }

  /** The account of an `Authorization: Bearer` token issued at /auth (RFC 6750 2.1); a hash lookup, no KDF needed. */
  async authenticateBearer(header: string | undefined): Promise<Account | undefined> {
    const token = parseBearerToken(header);
    if (!token) return undefined;
    const account = await this.accounts.find(token.name);
    if (!account || account.disabled) return undefined;
    return account.tokens?.some((record) => tokenMatches(token, record)) ? account : undefined;
  }

  /**
   * The account of these credentials when it holds `role` (an account may hold several roles).
   * Missing or wrong credentials: 401, rendered with WWW-Authenticate by the error exit (RFC 9110
   * 15.5.2). Valid credentials of an account without the role: 403 (RFC 9110 15.5.4), as other
   * credentials would not help this account.
   */
  async require(header: string | undefined, role: AccountRole): Promise<Account> {
    const account = /^Bearer\s/i.test(header ?? '') ? await this.authenticateBearer(header) : await this.authenticate(parseBasicAuth(header));
    if (!account) {
      throw new AppError(401, 'unauthorized', role === 'network_admin'
        ? 'network operations need the credentials of a network administrator account of this node'
        : 'publishing needs the HTTP Basic credentials of an account of this node');
    }
    if (!account.roles.includes(role)) {
      throw new AppError(403, 'forbidden', `account ${account.name} does not hold the role ${role} (it holds: ${account.roles.join(', ') || 'none'})`);
    }
    return account;
  }
}
