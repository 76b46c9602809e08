/**
 * Every view read of the node goes through here, for three reasons:
 * - by POST with the query in the body (CouchDB "POST /{db}/_design/{ddoc}/_view/{view}", which
 *   express-pouchdb also takes): keys of any length never reach the store's URL, whose limit
 *   answers 431 (issue 14, defect 3);
 * - with a bounded wait: a view whose index is still being built would hold the request for as
 *   long as the build takes; past `waitMs` the store request is aborted and the client gets a 503
 *   with Retry-After (the store goes on building, so a retry finds the index ready);
 * - stale reads where the caller asks for one (`stale: "update_after"`, which CouchDB 3 and
 *   PouchDB both accept): the rows as last indexed, at once, and the build started behind;
 * - range reads that answer from the index as it stands, with the changes it has not seen yet
 *   placed in the page (`readCurrent`, current-reads.ts).
 */
import type { StoredDoc, Database } from './documents.js';
import { storeUnavailable } from '../errors/app-error.js';
import { abortableRequest, mapCouchError, storeNotAnswering } from './couch.js';
import { MAX_BACKLOG, currentRows, type IndexRow } from './current-reads.js';
import { BacklogRows, revisions } from './backlog-rows.js';
import { BacklogFeed } from './backlog-feed.js';
import { databaseUpdateSeq, seqNumber } from './index-state.js';
import type { ViewMaps } from './view-maps.js';
import type { ReadAhead } from './read-ahead.js';

export interface ViewParams {
  startkey?: unknown;
  endkey?: unknown;
  keys?: unknown[];
  limit?: number;
  descending?: boolean;
  inclusive_end?: boolean;
  include_docs?: boolean;
  update_seq?: boolean;
  stale?: 'ok' | 'update_after';
}

/**
 * One row of a view: the key and value its map function emitted for document `id`, and with
 * `include_docs` the document (null when it has since been deleted). nano types every key as a
 * string; the key is what the map emits, so the repository that owns the view names its type.
 */
export interface ViewRow<K, V> { id: string; key: K; value: V; doc?: StoredDoc | null }

/** What a view read answers; `update_seq` only when asked for (the sequence the index has reached). */
export interface ViewResult<K, V> { rows: ViewRow<K, V>[]; total_rows: number; offset?: number; update_seq?: string | number }

/**
 * Seconds a client is told to wait before retrying a read that found its index still building.
 * Short, because the retry itself waits up to `waitMs` for the index and is answered the moment
 * it is built: the pause only adds to the client's wait (with 10 s, the bench `fresh` first page
 * arrived up to 10 s after its index was built), and costs the store one held request per client.
 */
const RETRY_AFTER_SECONDS = 2;

/** How long a read that ran out of time gives the store to answer its database info (outOfTime). */
const STORE_PROBE_MS = 2000;

/** AbortSignal.timeout's reason (DOMException "TimeoutError"), however the request rejected with it. */
function isTimeout(error: unknown): boolean {
  const named = (value: unknown): boolean => (value as { name?: unknown } | undefined)?.name === 'TimeoutError';
  return named(error) || named((error as { cause?: unknown } | undefined)?.cause);
}

/** What the index warmer (index-warmer.ts) knows of the database's writes, as a hint. */
export interface WriteActivity {
  /** True when the indexes have seen every write the warmer knows of: a read then just asks. */
  indexesLikelyCurrent(): boolean;
  /** The count part of the database's update_seq as last seen, if any. */
  latestSeq(): number | undefined;
}

/** How a `readCurrent` was answered: from the index as it stood, or by an up-to-date read. */
export type CurrentAnswer = 'index' | 'updated';

/** Why a page was read again up to date: a backlog too long, an order or rows not known for certain, a document changed again, a store error. */
export type UpdatedBecause = 'long_backlog' | 'uncertain' | 'changed_again' | 'store_error';

export interface CurrentReads {
  maps: ViewMaps;
  activity: WriteActivity;
  onAnswer?: (answer: CurrentAnswer, because?: UpdatedBecause) => void;
  /** Pages read before their request (read-ahead.ts); undefined: READ_AHEAD=off. */
  readAhead?: ReadAhead;
}

export class ViewReader {
  private readonly backlogRows: BacklogRows | undefined;
  private readonly backlogFeed = new BacklogFeed();
  /** Whether the store's sequences are counters (fromReadAhead), once a page read ahead has shown it. */
  private counterSeqs: boolean | undefined;

  constructor(private readonly waitMs: number, private readonly current?: CurrentReads) {
    this.backlogRows = current ? new BacklogRows(current.maps) : undefined;
  }

  /**
   * A range read (startkey/endkey, no `keys`) whose rows are current as of the request, answered
   * from the index as it stands plus the backlog of changes while the database is being written
   * to (current-reads.ts); otherwise, or when that is uncertain, as `read`. One deadline for all steps.
   */
  async readCurrent<K, V>(db: Database, what: string, ddoc: string, view: string, params: ViewParams): Promise<ViewResult<K, V>> {
    const current = this.rebuildable(ddoc, view, params);
    if (!current) return this.read<K, V>(db, what, ddoc, view, params);
    const deadline = AbortSignal.timeout(this.waitMs);
    const early = current.readAhead?.take<ViewResult<K, V>>(db.config.db, ddoc, view, params);
    if (early) {
      const answer = await this.fromReadAhead<K, V>(db, `${ddoc}/${view}`, params, early, current, deadline);
      if (answer) return answer;
    }
    if (current.activity.indexesLikelyCurrent()) return this.read<K, V>(db, what, ddoc, view, params, deadline);
    const asIndexed = await this.read<K, V>(db, what, ddoc, view, { ...params, stale: 'update_after', update_seq: true }, deadline);
    const rows = await this.rebuiltFromBacklog(db, `${ddoc}/${view}`, params, asIndexed, current.activity, deadline);
    if (Array.isArray(rows)) {
      current.onAnswer?.('index');
      delete asIndexed.update_seq;
      return { ...asIndexed, rows };
    }
    current.onAnswer?.('updated', rows);
    return this.read<K, V>(db, what, ddoc, view, params, deadline);
  }

  /**
   * A page read before this request arrived (read-ahead.ts), as of the request: as it was read
   * when the database has not changed since (its sequence, read now, is the one the page was read
   * at), else with the changes since placed in it, as during writes; undefined when neither is
   * certain (the caller reads it again). The database's sequence is asked for at once, while the
   * page may still be being read, so it adds no wait to the request; only a store whose
   * sequences are counters (the embedded store's) can be compared that way: CouchDB's are
   * opaque, summed over shards and copies, and there the changes are asked for instead.
   */
  private async fromReadAhead<K, V>(db: Database, view: string, params: ViewParams, early: Promise<ViewResult<K, V> | undefined>, current: CurrentReads, deadline: AbortSignal): Promise<ViewResult<K, V> | undefined> {
    // Undefined when the store does not answer: the changes are then asked for.
    const seqNow = this.counterSeqs === false ? undefined : databaseUpdateSeq(db.server, db.config.db, deadline).catch(() => undefined);
    const page = await early;
    if (!page) return undefined;
    const since = page.update_seq;
    this.counterSeqs = typeof since === 'number';
    const unchanged = typeof since === 'number' && await seqNow === since;
    const rows = unchanged ? page.rows : await this.rebuiltFromBacklog(db, view, params, page, current.activity, deadline);
    current.readAhead?.onOutcome(Array.isArray(rows) ? 'taken' : 'read_again');
    if (!Array.isArray(rows)) return undefined;
    delete page.update_seq;
    return { ...page, rows };
  }

  /**
   * Reads a range the node expects a request for soon (the next page of a list a harvester
   * follows), as the first step of `readCurrent` reads it: the index as it stands and the
   * sequence it has reached. A no-op with READ_AHEAD=off or for a view the node cannot rebuild.
   */
  readAhead(db: Database, what: string, ddoc: string, view: string, params: ViewParams): void {
    const current = this.rebuildable(ddoc, view, params);
    if (!current?.readAhead) return;
    current.readAhead.offer(db.config.db, ddoc, view, params, () => this.read(db, what, ddoc, view, { ...params, stale: 'update_after', update_seq: true }));
  }

  /** The range reads whose page the node can rebuild from the index as it stood and the changes since (a view whose map it runs, no `keys`, no `stale`). */
  private rebuildable(ddoc: string, view: string, params: ViewParams): CurrentReads | undefined {
    const current = this.current;
    return current && !params.keys && !params.stale && current.maps.has(ddoc, view) ? current : undefined;
  }

  /** The page as an up-to-date read would answer it, rebuilt from the index as it stood and the backlog (current-reads.ts). */
  private async rebuiltFromBacklog<K, V>(db: Database, view: string, params: ViewParams, asIndexed: ViewResult<K, V>, activity: WriteActivity, signal: AbortSignal): Promise<ViewResult<K, V>['rows'] | UpdatedBecause> {
    const since = asIndexed.update_seq;
    if (since === undefined || !this.backlogRows) return 'uncertain';
    const latest = activity.latestSeq();
    // The count part of a sequence is the number of changes (summed over shards on CouchDB): a
    // backlog certainly longer than the limit is not read at all.
    if (latest !== undefined && latest - seqNumber(since) > MAX_BACKLOG) return 'long_backlog';
    try {
      const backlog = await this.backlogFeed.changesSince(db, String(since), MAX_BACKLOG, signal);
      if (!backlog) return 'long_backlog';
      const emitted = await this.backlogRows.rowsOf(db, view, backlog, signal);
      const rebuilt = currentRows(params, asIndexed.rows, backlog.map((entry, index) => ({ id: entry.id, rows: emitted[index] })));
      if (!rebuilt) return 'uncertain';
      if (params.include_docs && rebuilt.added.length > 0) {
        const addedIds = new Set(rebuilt.added.map((row) => row.id));
        const docs = await revisions(db, backlog.filter((entry) => addedIds.has(entry.id)), signal);
        for (const row of rebuilt.added) {
          const doc = docs.get(row.id);
          if (!doc) return 'changed_again';
          (row as IndexRow & { doc?: StoredDoc }).doc = doc;
        }
      }
      // The backlog's rows come from the same map function (view-maps.ts), so they have its types.
      return rebuilt.rows as ViewResult<K, V>['rows'];
    } catch (error) {
      if (signal.aborted) throw await this.outOfTime(db, 'read the changes not yet indexed', error, this.waitMs);
      return 'store_error'; // the up-to-date read that follows reports the store's trouble, if any
    }
  }

  /** `limit` overrides the node's wait for one read (a health check waits far less), or shares a deadline. */
  async read<K, V>(db: Database, what: string, ddoc: string, view: string, params: ViewParams, limit: number | AbortSignal = this.waitMs): Promise<ViewResult<K, V>> {
    const signal = typeof limit === 'number' ? AbortSignal.timeout(limit) : limit;
    try {
      return await abortableRequest(db.server, { db: db.config.db, method: 'POST', path: `_design/${ddoc}/_view/${view}`, body: params }, signal) as ViewResult<K, V>;
    } catch (error) {
      if (signal.aborted) throw await this.outOfTime(db, what, error, typeof limit === 'number' ? limit : this.waitMs);
      throw mapCouchError(error, what);
    }
  }

  /**
   * A read that ran out of time: an index still being built, when the store answers its
   * database info at once; else a store that does not answer at all (stopped, hung), said so.
   * Every such read was told "still being built; retry in 2 s", and a SIGSTOPped store's every
   * retry then waited the whole VIEW_WAIT_MS again (an audit).
   */
  private async outOfTime(db: Database, what: string, cause: unknown, waitedMs: number): Promise<Error> {
    try {
      await databaseUpdateSeq(db.server, db.config.db, AbortSignal.timeout(STORE_PROBE_MS));
    } catch (error) {
      return isTimeout(error) ? storeNotAnswering(waitedMs, what, cause) : mapCouchError(error, what);
    }
    return storeUnavailable(`the store's index for this request is still being built (${what}); retry in ${RETRY_AFTER_SECONDS} s`, { cause, retryAfter: RETRY_AFTER_SECONDS });
  }
}
