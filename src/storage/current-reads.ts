/**
 * Range reads that need not wait for the index while documents are being written (issue 14: under
 * continuous publishing a slice or harvest page waited seconds, p99 up to 9 s, for its index to
 * catch up with writes that often had nothing to do with the page).
 *
 * A view read without `stale` makes the store bring the index up to date first. Instead, while
 * the database is being written to, the node reads the index as it stands together with the
 * sequence it has reached (`stale=update_after&update_seq=true`: CouchDB 3 and PouchDB both answer
 * at once and go on indexing behind the answer), then the changes since that sequence (`_changes?
 * since=`, ids and revisions: the backlog not yet indexed). Each backlog revision's rows come from
 * its view's own map function, run in the node (view-maps.ts; once per revision per process,
 * backlog-rows.ts). The current page is then rebuilt exactly (`currentRows`):
 * - the index rows of backlog documents are dropped (each may have moved or gone);
 * - the backlog rows inside the range are placed among the rest in the view's order;
 * - a page that was full covers only up to its last index row, since rows beyond it were not read:
 *   if fewer than `limit` rows are left there, nothing is certain and the page is read again.
 * Every comparison must be certain under CouchDB's ICU collation (view-collation.ts); where one is
 * not, or the backlog is long, the page is read again up to date (view-reader.ts), as before. The
 * answer is as of a moment between the request's arrival and its reply, as an up-to-date read is:
 * no gap for a harvester that follows its tokens or an incremental `from`, and a document
 * acknowledged before the request is always in it.
 */
import { certainlyDistinct, compareKeys } from './view-collation.js';
import type { EmittedRow } from './view-maps.js';

/**
 * A change the index has not seen (CouchDB "GET /{db}/_changes"): its document's id and the rows
 * its current revision emits in the view read ([] when deleted; undefined: unknown).
 */
export interface Change { id: string; rows: EmittedRow[] | undefined }

export interface RangeParams { startkey?: unknown; endkey?: unknown; limit?: number; descending?: boolean; inclusive_end?: boolean }

/** A view row as the store answers it (with more fields, such as `doc`, kept as they are). */
export interface IndexRow { id: string; key: unknown; value: unknown }

/** The longest backlog worth reading: beyond it, an up-to-date read costs less than the rebuild. */
export const MAX_BACKLOG = 2000;

/**
 * The rows an up-to-date read of `params` would return, rebuilt from `rows` (read from an index
 * that has not yet seen `backlog`) and the backlog's own rows; undefined when that cannot be
 * known for certain. `added` are the rows taken from the backlog (without documents).
 */
export function currentRows<R extends IndexRow>(params: RangeParams, rows: readonly R[], backlog: readonly Change[]): { rows: (R | IndexRow)[]; added: IndexRow[] } | undefined {
  if (backlog.length === 0 || params.limit === 0) return { rows: [...rows], added: [] };
  const direction = params.descending ? -1 : 1;
  const changed = new Set(backlog.map((change) => change.id));
  const kept = rows.filter((row) => !changed.has(row.id));
  const full = params.limit !== undefined && rows.length >= params.limit;
  const last = rows.at(-1);
  const added: IndexRow[] = [];
  for (const change of backlog) {
    if (change.rows === undefined) return undefined;
    for (const row of change.rows) {
      const place = placeInRange(row.key, params, full && last ? last.key : undefined, direction);
      if (place === undefined) return undefined;
      if (place) added.push({ id: change.id, key: row.key, value: row.value });
    }
  }
  if (added.length === 0 && kept.length === rows.length) return { rows: [...rows], added: [] };
  const merged = insertInOrder(kept, added, direction);
  if (!merged) return undefined;
  // A full page answered for its range only up to its last row: with rows dropped, the next
  // index rows (not read) could belong before the new end.
  if (full && merged.length < (params.limit as number)) return undefined;
  return { rows: params.limit === undefined ? merged : merged.slice(0, params.limit), added };
}

/**
 * Whether `key` belongs to the range read (and, for a full page, at or before its last row);
 * undefined when its place cannot be known for certain. Bounds are in reading order.
 */
function placeInRange(key: unknown, params: RangeParams, lastRead: unknown, direction: number): boolean | undefined {
  if (params.startkey !== undefined && params.endkey !== undefined && outsideCommonPrefix(key, params.startkey, params.endkey)) return false;
  if (params.startkey !== undefined) {
    const order = compareKeys(key, params.startkey);
    if (order === undefined) return undefined;
    if (order * direction < 0) return false;
  }
  if (params.endkey !== undefined) {
    const order = compareKeys(key, params.endkey);
    if (order === undefined) return undefined;
    if (order * direction > 0 || (order === 0 && params.inclusive_end === false)) return false;
  }
  if (lastRead !== undefined) {
    const order = compareKeys(key, lastRead);
    // Equal to the last row's key yet another row: where CouchDB puts it (by doc id) is not known here.
    if (order === undefined || order === 0) return undefined;
    if (order * direction > 0) return false;
  }
  return true;
}

/** `kept` (in the index's order) with `added` placed among them; undefined when an order is uncertain. */
function insertInOrder<R extends IndexRow>(kept: readonly R[], added: readonly IndexRow[], direction: number): (R | IndexRow)[] | undefined {
  const positioned: { at: number; row: IndexRow }[] = [];
  for (const row of added) {
    let at = kept.length;
    // The first kept row after the new one; every comparison on the way must be certain.
    for (let index = 0; index < kept.length; index += 1) {
      const order = compareKeys((kept[index] as R).key, row.key);
      if (order === undefined || order === 0) return undefined;
      if (order * direction > 0) { at = index; break; }
    }
    positioned.push({ at, row });
  }
  let uncertain = false;
  positioned.sort((a, b) => {
    if (a.at !== b.at) return a.at - b.at;
    const order = compareKeys(a.row.key, b.row.key);
    if (order === undefined || order === 0) { uncertain = true; return 0; }
    return order * direction;
  });
  if (uncertain) return undefined;
  const merged: (R | IndexRow)[] = [];
  let next = 0;
  kept.forEach((row, index) => {
    while (next < positioned.length && (positioned[next] as { at: number }).at === index) merged.push((positioned[next++] as { row: IndexRow }).row);
    merged.push(row);
  });
  while (next < positioned.length) merged.push((positioned[next++] as { row: IndexRow }).row);
  return merged;
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
