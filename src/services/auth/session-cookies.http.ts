/**
 * The /auth cookies on a request (session.ts says what they hold): signed with node:crypto's HMAC
 * and the secret kept in CouchDB, not koa's signed cookies, whose keygrip signs with the
 * process's app.keys in a second .sig cookie that another node process could not check.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NodeContext } from '../../http/context.js';

export class CookieSigner {
  constructor(private readonly secret: string, private readonly secure: boolean) {}

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
    // A TLS-terminating proxy in front of the node (which Koa sees as https only with TRUST_PROXY) still means https for the browser.
    if (this.secure) ctx.cookies.secure = true;
    ctx.cookies.set(cookie, value, { httpOnly: true, sameSite: 'lax', secure: this.secure, path: '/auth', expires, signed: false, overwrite: true });
  }
}
