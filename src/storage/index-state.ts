/**
 * How far a design doc's index is behind its database, read without building anything: CouchDB 3's
 * `GET /{db}/_design/{ddoc}/_info` (`view_index.updates_pending.total` on 3.5, else
 * `view_index.update_seq`; the embedded store answers it too, src/embedded/ddoc-info.ts).
 * Used by /status (resource-repository.ts), /metrics (monitoring-repository.ts) and paced
 * publishing (index-pacer.ts).
 */
import { abortableRequest, type Couch } from './couch.js';

/**
 * The count part of an update sequence: a number on PouchDB, "N-opaque" on CouchDB 3 (N sums the
 * shards). Only ever compared with the same database's own sequence, never passed back.
 */
export function seqNumber(seq: unknown): number {
  const value = typeof seq === 'number' ? seq : Number.parseInt(String(seq ?? '0'), 10);
  return Number.isFinite(value) ? value : 0;
}

/**
 * The database's update_seq (CouchDB "GET /{db}"), as the store gives it; rejects as the request
 * does. Read by the index warmer, the publish pacer and read-ahead (view-reader.ts).
 */
export async function databaseUpdateSeq(couch: Couch, db: string, signal: AbortSignal): Promise<unknown> {
  return ((await abortableRequest(couch, { db }, signal)) as { update_seq?: unknown }).update_seq;
}

export interface DesignDocIndex { pending: number | undefined; updateSeq: unknown }

/** The `_info` of one design doc (`ddocId` as `_design/name`); rejects as the request does. */
export async function designDocIndex(couch: Couch, db: string, ddocId: string, signal?: AbortSignal): Promise<DesignDocIndex> {
  const options = { db, path: `${ddocId}/_info` };
  const body = await (signal ? abortableRequest(couch, options, signal) : couch.request(options)) as { view_index?: { update_seq?: unknown; updates_pending?: { total?: unknown } } };
  const pending = body.view_index?.updates_pending?.total;
  return { pending: typeof pending === 'number' ? pending : undefined, updateSeq: body.view_index?.update_seq };
}

/**
 * Changes the index has still to process: CouchDB 3.5's own count where it gives one (a clustered
 * sequence is no number to subtract), else the database's update_seq less the index's.
 */
export function changesBehind(index: DesignDocIndex | undefined, dbUpdateSeq: unknown): number {
  return Math.max(0, index?.pending ?? seqNumber(dbUpdateSeq) - seqNumber(index?.updateSeq));
}
