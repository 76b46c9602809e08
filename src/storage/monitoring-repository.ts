/**
 * What monitoring reads from CouchDB, so every node process shows the same figures: store health,
 * the incoming backlog, view build lag per design document, node_timestamp view pages for the
 * per-day counts, and the per-day counter document itself. Nothing here triggers a reduce.
 */
import type { Couch } from './couch.js';
import { inStore, isConflict, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import type { ViewReader } from './view-reader.js';
import { changesBehind, designDocIndex } from './index-state.js';
import { getOrUndefined, database, type Database } from './documents.js';
import { isLiveRow, type HarvestValue, type TimeKey } from './harvest-repository.js';
import { parkedCount } from './distribution-parked.js';

/** A row of the harvest by_node_timestamp view: node_timestamp and doc_ID (its key is unique, so a position for keyset pages). */
export interface ViewPosition { key: string; id: string }
/** A page of storedPage: the live rows, the last row read (live or not) and how many were read. */
export interface StoredPage { live: ViewPosition[]; last: ViewPosition | null; read: number }

export interface DailyCountsDoc { _rev?: string; days: Record<string, number>; after: ViewPosition | null }

export interface ViewLag { database: string; designDoc: string; behind: number }

/** Per-day counts of stored documents (src/services/monitoring/daily-counts.ts); `_local`, so never replicated. */
export const DAILY_COUNTS_ID = '_local/lr-daily-stored';

export class MonitoringRepository {
  private readonly resources: Database;

  constructor(private readonly couch: Couch, private readonly names: DatabaseNames, private readonly views: ViewReader) {
    this.resources = database(couch, names.resourceData);
  }

  /** Milliseconds CouchDB took to answer `GET /`; throws (503) when it does not answer. */
  async ping(): Promise<number> {
    const started = performance.now();
    await inStore('ping', () => this.couch.info());
    return performance.now() - started;
  }

  /** Documents waiting in the incoming database: the follower deletes each one it has processed. */
  async incomingBacklog(): Promise<number> {
    const info = await inStore('read the incoming database', () => this.couch.db.get(this.names.incoming));
    return info.doc_count;
  }

  /** Arrived documents kept to be tried again (distribution-parked.ts). */
  incomingParked(): Promise<number> {
    return parkedCount(this.couch, this.names);
  }

  /**
   * Changes of each database not yet indexed by each design document with views: the database's
   * update_seq minus the index's (CouchDB "/{db}/_design/{ddoc}/_info", view_index.update_seq;
   * the embedded store answers it too, see src/embedded/ddoc-info.ts), or CouchDB's own
   * view_index.updates_pending.total where it reports one (3.5 does). Reading it builds nothing.
   */
  async viewLag(): Promise<ViewLag[]> {
    const lags: ViewLag[] = [];
    for (const name of Object.values(this.names)) {
      const db = database(this.couch, name);
      const [info, ddocs] = await Promise.all([
        inStore(`read ${name}`, () => this.couch.db.get(name)),
        inStore(`list design documents of ${name}`, () => db.list({ startkey: '_design/', endkey: '_design0', include_docs: true })),
      ]);
      const withViews = ddocs.rows.filter((row) => Object.keys(row.doc?.views ?? {}).length > 0);
      const indexed = await Promise.all(withViews.map((row) => inStore(`read ${row.id}/_info`, () => designDocIndex(this.couch, name, row.id))));
      for (const [position, row] of withViews.entries()) {
        lags.push({ database: name, designDoc: row.id.slice('_design/'.length), behind: changesBehind(indexed[position], info.update_seq) });
      }
    }
    return lags;
  }

  /**
   * One page of the documents by node_timestamp (Basic Harvest's by_node_timestamp, map only, key
   * [node_timestamp, doc_ID], value 0 for the live ones), without documents, after the row `after`
   * (keyset: that key, skipped; the embedded store has no startkey_docid, hence the unique key) and
   * stamped before `before`. `live` are the live rows of the page; `last` the last row read, live
   * or not, where the next page goes on; `read` the rows read (fewer than `limit`: the range ended).
   */
  async storedPage(after: ViewPosition | null, before: string, limit: number): Promise<StoredPage> {
    const range = after ? { startkey: [after.key, after.id], skip: 1 } : {};
    // A bounded wait (ViewReader): a dashboard load during an index build answers 503, not after the build.
    const result = await this.views.read<TimeKey, HarvestValue>(this.resources, 'read stored documents', 'harvest', 'by_node_timestamp', { ...range, endkey: [before], inclusive_end: false, limit });
    const positions = result.rows.map((row) => {
      const [key, id] = row.key;
      return { position: { key, id }, live: isLiveRow(row) };
    });
    return {
      live: positions.filter((row) => row.live).map((row) => row.position),
      last: positions[positions.length - 1]?.position ?? null,
      read: positions.length,
    };
  }

  async dailyCounts(): Promise<DailyCountsDoc | undefined> {
    return getOrUndefined(this.resources, DAILY_COUNTS_ID) as Promise<DailyCountsDoc | undefined>;
  }

  /** false when another process moved the document first (its counts stand; ours are dropped). */
  async saveDailyCounts(doc: DailyCountsDoc): Promise<boolean> {
    try {
      await this.resources.insert({ ...doc, _id: DAILY_COUNTS_ID } as never);
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw mapCouchError(error, 'write the daily counts');
    }
  }
}
