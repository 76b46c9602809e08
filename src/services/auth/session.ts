/**
 * /auth sessions in cookies, so any node process can serve any request (docs/scaling.md): the
 * value is base64url JSON plus an HMAC-SHA256 with the secret kept in CouchDB. Cookies are
 * HttpOnly, SameSite=Lax (RFC 6265bis 5.4.7: sent on the provider's top-level GET redirect back
 * to /auth/callback, never on a cross-site POST) and Secure when PUBLIC_URL is https.
 *
 * Two cookies: the session (account name, expiry, CSRF token) and, during the sign-in round
 * trip only, the OIDC state, nonce and PKCE code verifier (RFC 7636 4.1: the verifier must stay
 * with the client that started the flow; the cookie is HttpOnly and signed).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NodeContext } from '../../http/context.js';

export const SESSION_COOKIE = 'lr_auth';
export const LOGIN_COOKIE = 'lr_auth_login';
export const SESSION_SECONDS = 3600;
export const LOGIN_SECONDS = 600;

export interface Session { name: string; csrf: string; exp: number }
export interface LoginState { state: string; nonce: string; verifier: string; exp: number }

export class CookieSigner {
  constructor(private readonly secret: string, private readonly secure: boolean) {}

  // node:crypto's HMAC, not koa's signed cookies: keygrip signs with the process's app.keys in a second .sig cookie; our secret is CouchDB's.
  private mac(payload: string, cookie: string): Buffer {
    return createHmac('sha256', this.secret).update(`${cookie}\0${payload}`).digest();
  }

  /** The decoded value, or undefined when absent, forged, malformed or expired. */
  read<T extends { exp: number }>(ctx: NodeContext, cookie: string): T | undefined {
    const raw = ctx.cookies.get(cookie, { signed: false });
    const [payload, sig, extra] = raw?.split('.') ?? [];
    if (!payload || !sig || extra !== undefined) return undefined;
    const expected = this.mac(payload, cookie);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
      return typeof value.exp === 'number' && value.exp * 1000 > Date.now() ? value : undefined;
    } catch {
      return undefined;
    }
  }

  write(ctx: NodeContext, cookie: string, value: { exp: number }): void {
    const payload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    this.set(ctx, cookie, `${payload}.${this.mac(payload, cookie).toString('base64url')}`, new Date(value.exp * 1000));
  }

  clear(ctx: NodeContext, cookie: string): void {
    this.set(ctx, cookie, '', new Date(0));
  }

  private set(ctx: NodeContext, cookie: string, value: string, expires: Date): void {
    // A TLS-terminating proxy in front of the node (app.proxy is off) still means https for the browser.
    if (this.secure) ctx.cookies.secure = true;
    ctx.cookies.set(cookie, value, { httpOnly: true, sameSite: 'lax', secure: this.secure, path: '/auth', expires, signed: false, overwrite: true });
  }
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Timing-safe comparison of the form's CSRF token with the session's (OWASP synchronizer token). */
export function csrfMatches(session: Session, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}
