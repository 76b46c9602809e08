/**
 * OAuth 1.0 (RFC 5849) for publishing, as the original node accepted it (LR/lr/lib/oauth.py:
 * python-oauth2, HMAC-SHA1, a consumer key and a token per user) and its publishers' tools send it:
 * spec "Authentication" 3, "switching to OAuth is supported" (a reference audit, session 26).
 * The consumer key is the account name; `lr-node account oauth NAME` issues a token and the two
 * secrets. A request is admitted when its signature matches (src/domain/oauth1-signature.ts), its
 * timestamp is within ACCEPTED_SKEW_S of this node's clock, its nonce is new (src/storage/oauth-nonces.ts,
 * shared by every node process), and, when it carries oauth_body_hash, the body it sends is that body.
 */
import { randomBytes } from 'node:crypto';
import type { Account, AccountRepository, OAuthCredentialRecord } from '../../storage/account-repository.js';
import { ACCEPTED_SKEW_S, type OAuthNonces } from '../../storage/oauth-nonces.js';
import { baseStringUri, bodyHashMatches, hmacSignature, parseOAuthHeader, sameSignature, signatureBaseString, type SignedRequest } from '../../domain/oauth1-signature.js';
import { AppError } from '../../errors/app-error.js';

/** At most this many OAuth credentials an account holds, as bearer tokens. */
export const MAX_OAUTH_CREDENTIALS = 10;

const refused = (reason: string): AppError => new AppError(401, 'unauthorized', `OAuth: ${reason}`);

/** A new credential: what to show once, and what the account keeps. */
export function newOAuthCredential(account: string, label: string, now: string): { shown: Record<string, string>; record: OAuthCredentialRecord } {
  const record = { token: randomBytes(12).toString('hex'), token_secret: randomBytes(32).toString('base64url'), consumer_secret: randomBytes(32).toString('base64url'), label, created: now };
  return { shown: { consumer_key: account, consumer_secret: record.consumer_secret, token: record.token, token_secret: record.token_secret }, record };
}

export class OAuth1Verifier {
  constructor(private readonly accounts: AccountRepository, private readonly nonces: OAuthNonces, private readonly nowMs: () => number = Date.now) {}

  /** The account an `Authorization: OAuth` header proves for this request, or a 401 saying why not. */
  async verify(header: string, request: SignedRequest): Promise<Account> {
    const parsed = parseOAuthHeader(header);
    if (parsed === undefined) throw refused('not an OAuth header');
    if ('problem' in parsed) throw refused(parsed.problem);
    const nowS = Math.floor(this.nowMs() / 1000);
    if (Math.abs(nowS - parsed.timestamp) > ACCEPTED_SKEW_S) throw refused(`oauth_timestamp is more than ${ACCEPTED_SKEW_S} s from this node's clock (${nowS})`);
    const account = await this.accounts.find(parsed.consumerKey);
    const credential = account && !account.disabled ? account.oauth?.find((record) => record.token === parsed.token) : undefined;
    if (!account || !credential) throw refused('no such consumer key and token on this node');
    const urls = request.urls.flatMap((text) => (URL.canParse(text) ? [new URL(text)] : []));
    const signedFor = urls.find((url) => {
      const base = signatureBaseString(request.method, baseStringUri(url), [...url.searchParams, ...parsed.signed]);
      return sameSignature(parsed.signature, hmacSignature(parsed.method, base, credential.consumer_secret, credential.token_secret));
    });
    if (!signedFor) throw refused(`the signature does not match this request (${request.method} ${urls[0] ? baseStringUri(urls[0]) : 'its URL'})`);
    if (!await this.nonces.claim(account.name, parsed.token, parsed.timestamp, parsed.nonce)) throw refused('this oauth_nonce was used with this timestamp already (a replayed request)');
    const { bodyHash, method } = parsed;
    if (bodyHash !== undefined) request.expectBody((body) => bodyHashMatches(body, bodyHash, method));
    return account;
  }
}
