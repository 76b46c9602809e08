/**
 * The nonces of OAuth 1.0 requests (RFC 5849 §3.3: a nonce is used once per timestamp and
 * credentials), kept in the accounts database so every node process refuses a request another
 * one has served. One ordinary document per account (`oauth1_nonces:NAME`), holding the nonces of
 * the last ACCEPTED_SKEW_S * 2 seconds: a request's timestamp is refused beyond that skew, so an
 * older nonce cannot come back. Ordinary, not `_local/`, since `_local/` documents diverge on a
 * cluster (documents.ts); written settled (settled-writes.ts), so of two processes recording
 * the same nonce at once only one succeeds and the other reads it.
 */
import { createHash } from 'node:crypto';
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { database, getOrUndefined, type Database, type StoredDoc } from './documents.js';
import { writeOne } from './settled-writes.js';
import { AppError } from '../errors/app-error.js';

/** How far a request's oauth_timestamp may be from this node's clock, in seconds. */
export const ACCEPTED_SKEW_S = 300;
/** Nonces one account may use within the window (about 8 requests a second, each up to a publish batch): beyond, 429. */
const MAX_NONCES = 5_000;
const ATTEMPTS = 8;

type NonceDoc = StoredDoc & { seen: Record<string, number> };

export class OAuthNonces {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames) {
    this.db = database(couch, names.accounts);
  }

  /** Records the nonce; false when these credentials used it with this timestamp before (a replay). */
  async claim(account: string, token: string, timestamp: number, nonce: string, nowS: number): Promise<boolean> {
    const id = `oauth1_nonces:${account}`;
    const key = createHash('sha256').update(`${token}\0${timestamp}\0${nonce}`).digest('base64url');
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const stored = await getOrUndefined<NonceDoc>(this.db, id);
      if (stored?.seen[key] !== undefined) return false;
      const seen = Object.fromEntries(Object.entries(stored?.seen ?? {}).filter(([, at]) => at >= nowS - 2 * ACCEPTED_SKEW_S));
      if (Object.keys(seen).length >= MAX_NONCES) throw new AppError(429, 'too_many_attempts', `more than ${MAX_NONCES} OAuth requests of account ${account} in ${2 * ACCEPTED_SKEW_S} s`);
      seen[key] = timestamp;
      const written = await writeOne(this.db, { _id: id, ...(stored?._rev ? { _rev: stored._rev } : {}), doc_type: 'oauth1_nonces', seen }, 'record an OAuth nonce');
      if (written.ok) return true;
    }
    throw new AppError(503, 'too_many_attempts', 'the OAuth nonce could not be recorded: too many requests of this account at once');
  }
}
