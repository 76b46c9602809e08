/**
 * Range reads that need not wait for the index while documents are being written (issue 14: under
 * continuous publishing a slice or harvest page waited seconds, p99 up to 9 s, for its index to
 * catch up with writes that often had nothing to do with the page).
 *
 * A view read without `stale` makes the store bring the index up to date first. Instead, while
 * the database is being written to, the node reads the index as it stands together with the
 * sequence it has reached (`stale=update_after&update_seq=true`: CouchDB 3 and PouchDB both answer
 * at once and go on indexing behind the answer), then the changes since that sequence (`_changes?
 * since=`, ids and revisions: the backlog not yet indexed; each revision's keys are fetched and
 * mapped once per process, backlog-keys.ts). Those rows are the current answer when no change in
 * the backlog can touch them:
 * - no backlog document is among the rows (its row may have moved or gone), and
 * - no backlog document emits a key (its own map function, run in the node: view-maps.ts) inside
 *   the part of the range the page covers: from the start key to the last row when the page is
 *   full, to the end key when it is not.
 * Otherwise, or when the backlog is long, or a key's order cannot be known for certain
 * (view-collation.ts), the page is read again the usual way. The answer is then as of a moment
 * between the request's arrival and its reply, as an up-to-date read is: no gap for a harvester
 * that follows its tokens or an incremental `from`, and a document acknowledged before the
 * request is always in it.
 */
import { compareKeys } from './view-collation.js';

/**
 * A change the index has not seen (CouchDB "GET /{db}/_changes"): its document's id, whether it
 * was deleted, and otherwise the keys its current revision emits in the view read (undefined:
 * unknown, which counts as touching the page).
 */
export interface Change { id: string; deleted?: boolean; keys?: unknown[] | undefined }

export interface RangeParams { startkey?: unknown; endkey?: unknown; limit?: number; descending?: boolean }

/** The longest backlog worth reading: beyond it, an up-to-date read costs less than the proof. */
export const MAX_BACKLOG = 500;

type Bound = { key: unknown } | undefined;

/** Whether a backlog document is among the rows (its row may have moved or gone): checked before any key is fetched. */
export function touchesRows(rows: readonly { id: string }[], backlog: readonly { id: string }[]): boolean {
  const ids = new Set(rows.map((row) => row.id));
  return backlog.some((change) => ids.has(change.id));
}

/**
 * Whether `rows`, read from an index that has not yet seen `backlog`, are what an up-to-date
 * read of `params` would return.
 */
export function unaffectedByBacklog(params: RangeParams, rows: readonly { id: string; key: unknown }[], backlog: readonly Change[]): boolean {
  if (backlog.length === 0 || params.limit === 0) return true;
  if (touchesRows(rows, backlog)) return false;
  const [low, high] = coveredRange(params, rows);
  for (const change of backlog) {
    // A deleted document emits nothing; if it had a row in the page, the id check caught it.
    if (change.deleted) continue;
    if (change.keys === undefined) return false;
    if (change.keys.some((key) => mayBeWithin(key, low, high))) return false;
  }
  return true;
}

/** The keys the page answers for, low to high: up to its last row when full, to the end key when not. */
function coveredRange(params: RangeParams, rows: readonly { key: unknown }[]): [Bound, Bound] {
  const last = rows.at(-1);
  const full = params.limit !== undefined && last !== undefined && rows.length >= params.limit;
  const start: Bound = params.startkey !== undefined ? { key: params.startkey } : undefined;
  const end: Bound = full ? { key: last.key } : params.endkey !== undefined ? { key: params.endkey } : undefined;
  return params.descending ? [end, start] : [start, end];
}

/** False only when `key` is certainly below `low` or above `high` (bounds taken as inclusive). */
function mayBeWithin(key: unknown, low: Bound, high: Bound): boolean {
  if (low && compareKeys(key, low.key) === -1) return false;
  if (high && compareKeys(key, high.key) === 1) return false;
  if (low && high && outsideCommonPrefix(key, low.key, high.key)) return false;
  return true;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Two values no collation puts at the same place (two printable ASCII strings differ at every ICU level). */
function certainlyDistinct(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    return a !== b && ((PRINTABLE_ASCII.test(a) && PRINTABLE_ASCII.test(b)) || compareKeys(a, b) !== undefined);
  }
  const order = compareKeys(a, b);
  return order !== undefined && order !== 0;
}

/**
 * Every key between two array bounds starts with the elements both bounds start with (a slice
 * tag, an OAI-PMH format, a resource locator): a key whose element there certainly differs is
 * outside, even where the order of the two elements cannot be known ("k-12" against "kindergarten").
 */
function outsideCommonPrefix(key: unknown, low: unknown, high: unknown): boolean {
  if (!Array.isArray(key) || !Array.isArray(low) || !Array.isArray(high)) return false;
  for (let index = 0; index < Math.min(low.length, high.length); index += 1) {
    if (compareKeys(low[index], high[index]) !== 0 || typeof low[index] === 'object') return false;
    if (index >= key.length) return false;
    if (certainlyDistinct(key[index], low[index])) return true;
    if (key[index] !== low[index]) return false;
  }
  return false;
}
