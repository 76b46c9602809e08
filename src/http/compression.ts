/**
 * Response compression by Accept-Encoding (RFC 9110 §12.5.3): gzip or deflate for every
 * compressible answer over 1 KiB — harvest and OAI-PMH pages, obtain and slice, streamed ones
 * included (koa-compress pipes the stream through zlib). Brotli and zstd are not offered: their
 * CPU cost per page outweighs their gain over gzip for XML and JSON on a busy 2-core node. The
 * inbound replication endpoint is left alone: it relays CouchDB's own answers to a replicator.
 */
import compress from 'koa-compress';
import type { Middleware } from 'koa';
import type { NodeState } from './context.js';
import { RESPONSE_ENCODINGS } from '../protocol/content-encodings.js';

export function responseCompression(skipPrefix: string): Middleware<NodeState> {
  const offered = new Set<string>(RESPONSE_ENCODINGS);
  const zlib = compress({ threshold: 1024, gzip: offered.has('gzip') ? {} : false, deflate: offered.has('deflate') ? {} : false, br: false, zstd: false } as Parameters<typeof compress>[0]);
  return (ctx, next) => {
    if (ctx.path === skipPrefix || ctx.path.startsWith(`${skipPrefix}/`)) return next();
    // A client that rules out every coding this node offers, identity too (`identity;q=0`,
    // `*;q=0`), gets the answer without content coding, which RFC 9110 §12.5.3 allows;
    // koa-compress would fail on it with a TypeError outside the error exit.
    if (ctx.acceptsEncodings([...offered, 'identity']) === false) delete ctx.request.headers['accept-encoding'];
    return zlib(ctx, next);
  };
}
