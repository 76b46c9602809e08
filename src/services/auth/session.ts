/**
 * /auth sessions in cookies, so any node process can serve any request (docs/scaling.md): the
 * value is base64url JSON plus an HMAC-SHA256 with the secret kept in CouchDB. Cookies are
 * HttpOnly, SameSite=Lax (RFC 6265bis 5.4.7: sent on the provider's top-level GET redirect back
 * to /auth/callback, never on a cross-site POST) and Secure when PUBLIC_URL is https.
 *
 * Two cookies: the session (account name, expiry, CSRF token) and, during the sign-in round
 * trip only, the OIDC state, nonce and PKCE code verifier (RFC 7636 4.1: the verifier must stay
 * with the client that started the flow; the cookie is HttpOnly and signed).
 * Their values and rules here; reading and writing them on a request: session-cookies.http.ts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'lr_auth';
export const LOGIN_COOKIE = 'lr_auth_login';
export const SESSION_SECONDS = 3600;
export const LOGIN_SECONDS = 600;

export interface Session { name: string; csrf: string; exp: number }
export interface LoginState { state: string; nonce: string; verifier: string; exp: number }

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Timing-safe comparison of the form's CSRF token with the session's (OWASP synchronizer token). */
export function csrfMatches(session: Session, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}
