/**
 * Cross-origin reads of the public read services (CORS: the Fetch standard's CORS protocol), for
 * web pages of the origins CORS_ORIGINS names. The original node served its browser clients by
 * JSONP (`callback`), which lets any page read anything a visitor's browser can, cookies and all;
 * CORS without credentials gives a page only what it could fetch anonymously (a reference audit,
 * session 26). Off by default, as CouchDB's own `enable_cors`: a node reachable only inside a
 * private network would otherwise hand its data to any page its users open.
 *
 * Only reads: publish, delete, distribution, accounts and the inbound endpoint never answer
 * another origin, and no answer allows credentials.
 */
import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { CorsOrigins } from '../config/settings.js';

/** The public read services and node endpoints (spec "Endpoints": Access, Slice, node-level). */
const PUBLIC_READS = /^\/(?:obtain|slice|OAI-PMH|status|description|services|policy|pubkey|harvest\/[a-z]+|schemas\/[^/]+)\/?$/;

/** The middleware, or none when CORS_ORIGINS is off. */
export function crossOriginReads(allowed: CorsOrigins): Middleware | undefined {
  if (allowed.kind === 'off') return undefined;
  return cors({
    // An empty origin skips the CORS headers: a same-origin request, another path, an origin not listed.
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (origin === '' || !PUBLIC_READS.test(ctx.path)) return '';
      if (allowed.kind === 'any') return '*';
      return allowed.origins.has(origin) ? origin : '';
    },
    allowMethods: 'GET,HEAD,POST',
    // POST /obtain and /slice send JSON, which needs a preflight; nothing else is asked for.
    allowHeaders: 'Content-Type',
    exposeHeaders: 'Retry-After',
    maxAge: 600,
  });
}
