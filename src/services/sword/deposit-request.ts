/**
 * The request side of a SWORD 1.3 deposit (profile section 1.5, "HTTP headers"): header
 * parsing, the size-limited body and the Content-MD5 check. Koa-free so the rules stay readable.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parse as parseContentType } from 'content-type';
import { Readable } from 'node:stream';
import getRawBody from 'raw-body';
import inflate from 'inflation';
import { SwordError } from './sword-error.js';

export interface DepositHeaders {
  noOp: boolean;
  verbose: boolean;
  /** The Content-MD5 digest (16 bytes), when supplied. */
  md5?: Buffer;
  /** Content-Disposition filename, informational only (reported in the verbose description). */
  filename?: string;
  userAgent?: string;
}

/** X-No-Op and X-Verbose take `true` or `false` (profile 1.5); anything else is a bad request. */
function flag(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new SwordError('ErrorBadRequest', `${name} must be "true" or "false"`);
}

/** Content-MD5: RFC 1864 says base64, but SWORD 1.3 clients commonly send hex; both are accepted. */
function md5Digest(raw: string): Buffer | undefined {
  const value = raw.trim();
  if (value === '') return undefined;
  if (/^[0-9a-f]{32}$/i.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{22}==$/.test(value)) return Buffer.from(value, 'base64');
  throw new SwordError('ErrorBadRequest', 'Content-MD5 must be an MD5 digest in hex or base64');
}

// Ours: clients commonly send `filename=x` with no disposition type, which content-disposition (strict RFC 6266) refuses.
function filenameOf(raw: string): string | undefined {
  const match = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(raw);
  const name = match?.[1] ?? match?.[2];
  return name ? name.slice(0, 200) : undefined;
}

export function parseDepositHeaders(get: (name: string) => string): DepositHeaders {
  // Only JSON resource data description documents are deposited (spec "SWORD publish"), and no
  // packages: the profile answers unsupported content and packaging with 415 ErrorContent.
  if (parseContentType(get('content-type'), { parameters: false }).type !== 'application/json') {
    throw new SwordError('ErrorContent', 'only application/json (one resource data description document) is accepted');
  }
  if (get('x-packaging').trim() !== '') throw new SwordError('ErrorContent', 'packaged deposits (X-Packaging) are not supported');
  const md5 = md5Digest(get('content-md5'));
  const filename = filenameOf(get('content-disposition'));
  const userAgent = get('user-agent').slice(0, 200);
  return {
    noOp: flag('X-No-Op', get('x-no-op')),
    verbose: flag('X-Verbose', get('x-verbose')),
    ...(md5 ? { md5 } : {}),
    ...(filename ? { filename } : {}),
    ...(userAgent ? { userAgent } : {}),
  };
}

const tooLarge = (limit: number): SwordError =>
  new SwordError('MaxUploadSizeExceeded', `the deposit is larger than ${limit} bytes (publish service_data.msg_size_limit)`);

/**
 * Reads the body up to `limit` bytes. Past the limit the rest is drained unread (not destroyed,
 * so the client still receives the 413 sword:error instead of a reset connection).
 */
export async function readDepositBody(req: IncomingMessage, limit: number | undefined): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: limit || null, length: req.headers['content-length'] ?? null });
  } catch (error) {
    if ((error as { status?: number }).status !== 413) throw error;
    req.resume(); // raw-body leaves the request paused
    throw tooLarge(limit as number);
  }
}

/**
 * The deposit as its Content-Encoding (RFC 9110 §8.4) says to decode it: gzip, deflate, br or
 * none, as /publish takes them (@koa/bodyparser uses the same decoder, inflation). A deposit was
 * read as it came, so a gzip body was "not valid JSON" here while /publish took it, and an unknown
 * coding was read as none (an audit's finding). `limit` bounds the decoded size too. The
 * Content-MD5 and an OAuth body hash cover the body as sent, before this.
 */
export async function decodedDeposit(body: Buffer, contentEncoding: string, limit: number | undefined): Promise<Buffer> {
  const encoding = contentEncoding.trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  let stream: Readable;
  try {
    // inflation reads the coding where an HTTP request has it.
    stream = inflate(Object.assign(Readable.from([body]), { headers: { 'content-encoding': encoding } }));
  } catch {
    throw new SwordError('ErrorContent', `Content-Encoding ${encoding.slice(0, 40)} is not supported: send the deposit as it is, or in gzip, deflate or br`);
  }
  try {
    return await getRawBody(stream, { limit: limit || null });
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw tooLarge(limit as number);
    throw new SwordError('ErrorBadRequest', `the deposit could not be decoded as its Content-Encoding (${encoding.slice(0, 40)}) says`);
  }
}

/** Profile 1.5: a Content-MD5 that does not match the body is 412 ErrorChecksumMismatch. */
export function verifyChecksum(body: Buffer, expected: Buffer | undefined): void {
  if (expected && !createHash('md5').update(body).digest().equals(expected)) {
    throw new SwordError('ErrorChecksumMismatch', 'Content-MD5 does not match the MD5 digest of the body');
  }
}

export function parseDocument(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new SwordError('ErrorBadRequest', 'the body is not valid JSON');
  }
}
