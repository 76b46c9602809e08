/**
 * Reads a JSON request body with the size limit the service description states
 * (`msg_size_limit`); the limit is known only per request, so the parser is made per request.
 */
import { bodyParser } from '@koa/bodyparser';
import type { NodeContext } from './context.js';
import { AppError } from '../errors/app-error.js';
import { checkSignedBody } from './signed-body.js';

/**
 * A body is read as JSON only when it says it is JSON (RFC 8259 §11: application/json, any
 * parameters such as charset; or a +json type): anything else is a 415, before it is read.
 */
function requireJsonType(ctx: NodeContext): void {
  const hasBody = ctx.request.length ? ctx.request.length > 0 : ctx.get('transfer-encoding') !== '';
  if (!hasBody) return;
  if (ctx.is('application/json', '+json') === false || !ctx.get('content-type')) {
    throw new AppError(415, 'unsupported_media_type', 'the request body must be JSON: send it with Content-Type: application/json');
  }
}

export function isUnsupportedType(error: unknown): boolean {
  return error instanceof AppError && error.status === 415;
}

export async function readJsonBody(ctx: NodeContext, limitBytes: number | undefined): Promise<unknown> {
  requireJsonType(ctx);
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: limitBytes && limitBytes > 0 ? limitBytes : '100mb', jsonStrict: true, detectJSON: () => true });
  await parse(ctx as never, async () => undefined);
  checkSignedBody(ctx, () => Buffer.from((ctx.request as unknown as { rawBody?: string }).rawBody ?? '', 'utf8'));
  return (ctx.request as unknown as { body?: unknown }).body;
}

/**
 * What is wrong with a body the parser refused: too large (code `payload_too_large`) or not JSON
 * (`invalid_request`). The status is the endpoint's: 413/400 by default, the spec's 500 on the
 * services whose status table says so (src/errors/app-error.ts, SPEC_ERROR_STATUS).
 */
export function bodyRefusal(error: unknown, limitBytes: number | undefined, setting?: string): { code: 'payload_too_large' | 'invalid_request'; message: string } {
  const status = (error as { status?: number }).status;
  if (status === 413) return { code: 'payload_too_large', message: `request body too large: the limit is ${limitBytes} bytes${setting ? ` (${setting})` : ''}` };
  const coding = contentCodingProblem(error);
  if (coding) return { code: 'invalid_request', message: coding };
  return { code: 'invalid_request', message: 'request body is not valid JSON' };
}

/**
 * What is wrong with a body's Content-Encoding (RFC 9110 §8.4), or undefined: a coding the
 * decoder (inflation, through @koa/bodyparser) does not have is its 415, a body that is not in
 * the coding it names is zlib's error (its `code`). Both were "request body is not valid JSON"
 * (an audit's finding). SWORD decodes its deposits itself (services/sword/deposit-request.ts).
 */
function contentCodingProblem(error: unknown): string | undefined {
  const { status, message, code } = error as { status?: number; message?: string; code?: string };
  if (status === 415 && message?.startsWith('Unsupported Content-Encoding')) return `${message.slice(0, 80)}: send the body as it is, or in gzip, deflate or br`;
  // zlib's codes: Z_DATA_ERROR and the like, ERR__ERROR_... for brotli.
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__'))) return 'the request body could not be decoded as its Content-Encoding says';
  return undefined;
}

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one pass over the
 * bytes (no parse, no recursion). JSON.parse itself takes any depth, but code that walks the
 * value recursively does not: the embedded store (PouchDB) answers a document nested about
 * 10,000 deep with "RangeError: Maximum call stack size exceeded" (issue 14, generated bad input).
 */
export function textNestsDeeperThan(text: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const byte = text[i];
    if (byte === 0x22) i = stringEnd(text, i + 1);
    else if (byte === 0x5b || byte === 0x7b) { depth += 1; if (depth > limit) return true; }
    else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * The index of the quote that closes the string whose text starts at `from` (text.length when
 * none does). Most of a document's bytes are string contents (inline XML payloads), so the next
 * quote is found by indexOf (memchr), not byte by byte: 5% of a distribution destination's CPU
 * went to the byte loop (a profile, 2026-12-06). A quote after an odd run of backslashes is escaped.
 */
function stringEnd(text: Uint8Array, from: number): number {
  for (let quote = text.indexOf(0x22, from); quote !== -1; quote = text.indexOf(0x22, quote + 1)) {
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}
