/**
 * HTTP Basic authentication of node accounts (spec "Authentication", 2 and 3). Checking a
 * password costs a slow KDF, so a successful check is remembered for a minute in this process,
 * keyed by an HMAC of the credentials and the account document's revision: a changed password or
 * a disabled account invalidates it at once. Nothing here is needed by another node process.
 * A name without an account costs the same check (against a stand-in hash), so answer times do
 * not tell which accounts exist; checks are rationed and failures throttled (sign-in-guard.ts).
 * Bearer tokens issued at /auth ("switching to OAuth", RFC 6750) and OAuth 1.0 signatures (the
 * original node's OAuth, oauth1.ts) are accepted in the same place.
 */
import { createHmac, randomBytes } from 'node:crypto';
import basicAuth from 'basic-auth';
import type { Account, AccountRepository } from '../../storage/account-repository.js';
import { hashPassword, verifyPassword, type PasswordHash } from '../../domain/password.js';
import { SignInGuard } from './sign-in-guard.js';
import { parseBearerToken, tokenMatches } from './bearer-token.js';
import type { OAuth1Verifier } from './oauth1.js';
import type { SignedRequest } from '../../domain/oauth1-signature.js';
import { AppError } from '../../errors/app-error.js';

export interface Credentials { user: string; password: string }

/** The credentials of a Basic Authorization header (basic-auth); an empty user-id names no account. */
export function parseBasicAuth(header: string | undefined): Credentials | undefined {
  const parsed = header === undefined ? undefined : basicAuth.parse(header);
  return parsed && parsed.name !== '' ? { user: parsed.name, password: parsed.pass } : undefined;
}

const CACHE_MS = 60_000;
const CACHE_MAX = 1000;

export class Authenticator {
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, number>();
  /** Checked instead when the name has no usable account, so that costs the same time (no account probing). */
  private standInHash: Promise<PasswordHash> | undefined;

  constructor(private readonly accounts: AccountRepository, private readonly guard = new SignInGuard(), private readonly oauth?: OAuth1Verifier) {}

  /**
   * The account for these credentials, or undefined when they are wrong or the account is
   * disabled. Failures of a name from `client` (the caller's address) are throttled (sign-in-guard.ts).
   */
  async authenticate(credentials: Credentials | undefined, client?: string): Promise<Account | undefined> {
    if (!credentials) return undefined;
    this.guard.admit(client, credentials.user);
    const found = await this.accounts.find(credentials.user);
    const account = found && !found.disabled && found.password ? found : undefined;
    const key = createHmac('sha256', this.cacheKey).update(`${account?.rev ?? ''}\0${credentials.user}\0${credentials.password}`).digest('base64');
    const until = account ? this.verified.get(key) : undefined;
    if (account && until !== undefined && until > Date.now()) return account;
    const stored = account?.password ?? await this.standIn();
    const matches = await this.guard.check(() => verifyPassword(credentials.password, stored));
    if (!account || !matches) {
      this.guard.failed(client, credentials.user);
      return undefined;
    }
    this.guard.succeeded(client, credentials.user);
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(key, Date.now() + CACHE_MS);
    return account;
  }

  private standIn(): Promise<PasswordHash> {
    this.standInHash ??= hashPassword(randomBytes(16).toString('base64'));
    return this.standInHash;
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
   * The account an `Authorization` header proves: Basic credentials (RFC 7617), a bearer token
   * issued at /auth (RFC 6750), or an OAuth 1.0 signature of `request` (RFC 5849, oauth1.ts: a
   * 401 saying what is wrong with it); undefined when it proves none. What that account may do is
   * the gate's decision (src/http/gate.ts), per route.
   */
  async identify(header: string | undefined, client?: string, request?: SignedRequest): Promise<Account | undefined> {
    if (/^OAuth\s/i.test(header ?? '')) {
      if (!this.oauth || !request) throw new AppError(401, 'unauthorized', 'OAuth: not accepted here (publishing, deleting and SWORD deposits take it)');
      return this.oauth.verify(header as string, request);
    }
    return /^Bearer\s/i.test(header ?? '') ? this.authenticateBearer(header) : this.authenticate(parseBasicAuth(header), client);
  }
}
