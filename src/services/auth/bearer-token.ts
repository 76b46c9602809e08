/**
 * Bearer tokens for publishing, issued at /auth (spec "Authentication", 3: "switching to OAuth is
 * supported"; sent as `Authorization: Bearer`, RFC 6750 2.1). A token names its account, so a
 * check is one document read; the account keeps only a SHA-256 of each token. A fast hash is
 * enough because the secret is 256 random bits (no dictionary to guess from, unlike passwords).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { BearerTokenRecord } from '../../storage/account-repository.js';

const PREFIX = 'lrpub';

export interface ParsedToken { name: string; id: string; token: string }

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** A new token (shown once) and the record to store. */
export function newBearerToken(name: string, label: string, now: string): { token: string; record: BearerTokenRecord } {
  const id = randomBytes(6).toString('hex');
  const token = `${PREFIX}.${Buffer.from(name, 'utf8').toString('base64url')}.${id}.${randomBytes(32).toString('base64url')}`;
  return { token, record: { id, hash: digest(token), label, created: now } };
}

/** RFC 6750 2.1 `Bearer b64token`; undefined unless it has our token's shape. */
export function parseBearerToken(header: string | undefined): ParsedToken | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const parts = match?.[1]?.split('.') ?? [];
  const [prefix, encodedName, id, secret] = parts;
  if (parts.length !== 4 || prefix !== PREFIX || !encodedName || !id || !secret) return undefined;
  if (!/^[0-9a-f]{12}$/.test(id) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  return { name: Buffer.from(encodedName, 'base64url').toString('utf8'), id, token: match?.[1] ?? '' };
}

export function tokenMatches(token: ParsedToken, record: BearerTokenRecord): boolean {
  if (record.id !== token.id) return false;
  const a = Buffer.from(digest(token.token));
  const b = Buffer.from(record.hash);
  return a.length === b.length && timingSafeEqual(a, b);
}
