/**
 * Requests that came through a reverse proxy while TRUST_PROXY is 0: every client then has the
 * proxy's address, so the sign-in throttle (services/auth/sign-in-guard.ts: failures counted per
 * account name and address) counts every client's failures together, and ten wrong passwords a
 * minute from anyone refused that account to everyone (a docs audit found the README's proxy
 * deployment open to it). The node cannot tell a proxy's header from one a client wrote, so it
 * does not believe it; it says once that TRUST_PROXY is to be set.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';

export function untrustedForwardedFor(logger: Logger): Middleware {
  let warned = false;
  return async (ctx, next) => {
    if (!warned && ctx.get('x-forwarded-for') !== '') {
      warned = true;
      logger.warn('a request carries X-Forwarded-For, but TRUST_PROXY is 0: every client behind that proxy has its address, so failed sign-ins of one account name are counted together for all of them (ten a minute refuse it to everyone); set TRUST_PROXY to the number of proxies in front of the node');
    }
    await next();
  };
}
