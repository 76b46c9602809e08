/**
 * The nonces of OAuth 1.0 requests (RFC 5849 §3.3: a nonce is used once per timestamp and
 * credentials), kept in the accounts database so every node process refuses a request another
 * one has served. Ordinary documents, not `_local/` ones, since `_local/` documents diverge on a
 * cluster (documents.ts); written settled (settled-writes.ts), so of two processes recording
 * the same nonce at once only one succeeds and the other reads it.
 *
 * One record per account and minute of `oauth_timestamp`, in SLOTS records used in turn
 * (`oauth1_nonces:NAME:SLOT`): a request touches only its minute's record, which holds at most
 * MAX_NONCES_PER_MINUTE nonces, and an account never has more than SLOTS records. (The first
 * version kept all of an account's nonces of the last ten minutes in one record, rewritten whole
 * on every request: up to 300 KB read and written per request at its cap.)
 */
import { createHash } from 'node:crypto';
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { database, getOrUndefined, removeIfPresent, type Database, type StoredDoc } from './documents.js';
import { writeOne } from './settled-writes.js';
import { AppError } from '../errors/app-error.js';

/** How far a request's oauth_timestamp may be from this node's clock, in seconds. */
export const ACCEPTED_SKEW_S = 300;
const MINUTE_S = 60;
/**
 * A record is reused for timestamps SLOTS minutes later than those it held. By then every one
 * of those is beyond the accepted skew: a request stamped 12 minutes after minute m is admitted no
 * earlier than 60m + 720 - 300 s, when any stamp of minute m (at most 60m + 59) is over 300 s old,
 * with a minute to spare for the clocks of several node processes.
 */
const SLOTS = 12;
/** OAuth requests one account may stamp within one minute (about 8 a second): beyond, 429. */
const MAX_NONCES_PER_MINUTE = 500;
const ATTEMPTS = 8;

type NonceDoc = StoredDoc & { minute: number; seen: Record<string, 1> };

const idOf = (account: string, slot: number): string => `oauth1_nonces:${account}:${slot}`;

export class OAuthNonces {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames) {
    this.db = database(couch, names.accounts);
  }

  /** Records the nonce; false when these credentials used it with this timestamp before (a replay). */
  async claim(account: string, token: string, timestamp: number, nonce: string): Promise<boolean> {
    const minute = Math.floor(timestamp / MINUTE_S);
    const id = idOf(account, ((minute % SLOTS) + SLOTS) % SLOTS);
    const key = createHash('sha256').update(`${token}\0${timestamp}\0${nonce}`).digest('base64url');
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const stored = await getOrUndefined<NonceDoc>(this.db, id);
      // A later minute holds the record: this timestamp is past the skew on some process's clock;
      // taking it would drop that minute's nonces, so it is refused instead.
      if (stored !== undefined && stored.minute > minute) return false;
      const seen = stored?.minute === minute ? stored.seen : {};
      if (seen[key] !== undefined) return false;
      if (Object.keys(seen).length >= MAX_NONCES_PER_MINUTE) throw new AppError(429, 'too_many_attempts', `more than ${MAX_NONCES_PER_MINUTE} OAuth requests of account ${account} stamped within one minute`);
      const written = await writeOne(this.db, { _id: id, ...(stored?._rev ? { _rev: stored._rev } : {}), doc_type: 'oauth1_nonces', minute, seen: { ...seen, [key]: 1 } }, 'record an OAuth nonce');
      if (written.ok) return true;
    }
    throw new AppError(503, 'too_many_attempts', 'the OAuth nonce could not be recorded: too many requests of this account at once');
  }

  /** Deletes an account's records (it is being removed); the first version's single record too. */
  async forget(account: string): Promise<void> {
    const ids = [`oauth1_nonces:${account}`, ...Array.from({ length: SLOTS }, (_, slot) => idOf(account, slot))];
    await Promise.all(ids.map((id) => removeIfPresent(this.db, id)));
  }
}
