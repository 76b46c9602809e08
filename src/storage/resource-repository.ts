/** Resource data queries the node endpoints need (the access services own their own views). */
import { abortableRequest, inStore, mapCouchError, storeNotAnswering, type Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, type StoredDoc, database, type Database } from './documents.js';
import { getMany } from './resource-writes.js';
import { bulkWrite, type WriteResult } from './settled-writes.js';
import { designDocIndex, seqNumber } from './index-state.js';
import type { ViewParams, ViewReader, ViewResult } from './view-reader.js';
import type { TimeKey } from './view-keys.js';

/** Every view of the resource database: on PouchDB each view has its own index, so each is asked. */
const INDEXED_VIEWS: readonly [string, string][] = [
  ['harvest', 'by_node_timestamp'], ['harvest', 'by_resource_locator'], ['oai-pmh', 'by_schema'],
  ['slice', 'by_date'], ['slice', 'by_identity'], ['slice', 'by_tag'],
];

/** The views /status reports on, as `design doc/view`. */
export const INDEXED_VIEW_NAMES: readonly string[] = INDEXED_VIEWS.map(([ddoc, view]) => `${ddoc}/${view}`);

/** `checkedSeq`: the database's update_seq `current` was judged against (a later write makes it not current). */
export interface LiveSummary { count: number; earliest: string | undefined; current: boolean; checkedSeq: number }
export interface StoreCounters { docCount: number; updateSeq: string | number }
export interface IndexState extends StoreCounters { viewsCurrent: boolean; staleViews: string[] }

export class ResourceRepository {
  private readonly db: Database;

  constructor(private readonly couch: Couch, private readonly names: DatabaseNames, private readonly views: ViewReader) {
    this.db = database(couch, names.resourceData);
  }

  getMany(ids: string[]): Promise<Map<string, StoredDoc>> {
    return getMany(this.db, ids);
  }

  bulkWrite(docs: StoredDoc[]): Promise<WriteResult[]> {
    return bulkWrite(this.db, docs);
  }

  /** A `_local` marker of this database (never replicated), e.g. "the sample data was loaded". */
  async hasMarker(name: string): Promise<boolean> {
    return (await getOrUndefined(this.db, `_local/${name}`)) !== undefined;
  }

  async setMarker(name: string, value: Record<string, unknown>): Promise<void> {
    await inStore(`write marker ${name}`, () => this.db.insert({ _id: `_local/${name}`, ...value } as never));
  }

  /**
   * Live document count and earliest node_timestamp in one map-only view read: `total_rows` of a
   * map-only view needs no reduce (reduces cost time per row on the embedded store). The view is
   * Slice's by_date, whose rows are exactly the live documents (spec "Basic Obtain", rule 4;
   * isLive in src/domain/resource-document.ts), one each, keyed [node_timestamp, codeUnitKey(doc_ID)]: reading
   * it costs no index of its own (a node-status design doc with these rows, then Basic Obtain's
   * own, each cost one more index pass per write; both are retired, RETIRED_DESIGN_DOCS in
   * design-docs.ts). Never waits
   * for an index build: the rows as last indexed are read (bounded by `budget.staleMs`); when the
   * index is only a few changes behind (`budget.smallLag`) it is brought up to date first
   * (bounded by `budget.catchUpMs`), otherwise the last-indexed rows answer (`current: false`)
   * and the store is asked to catch up behind the answer. undefined: the index is being built.
   */
  async liveSummary(budget: { staleMs: number; catchUpMs: number; smallLag: number }): Promise<LiveSummary | undefined> {
    const read = (params: ViewParams, waitMs: number): Promise<ViewResult<TimeKey, null> | undefined> =>
      this.views.read<TimeKey, null>(this.db, 'read live documents', 'slice', 'by_date', { limit: 1, ...params }, waitMs)
        .catch((error: unknown) => { if ((error as { status?: number }).status === 503) return undefined; throw error; });
    const [info, stale] = await Promise.all([this.info(), read({ stale: 'ok', update_seq: true }, budget.staleMs)]);
    if (!stale) return undefined;
    const checkedSeq = seqNumber(info.update_seq);
    const asLive = (result: ViewResult<TimeKey, null>, current: boolean): LiveSummary => {
      const firstKey = result.rows[0]?.key;
      return { count: result.total_rows, earliest: firstKey ? String(firstKey[0]) : undefined, current, checkedSeq };
    };
    const indexedSeq = seqNumber(stale.update_seq);
    const lag = checkedSeq - indexedSeq;
    if (lag <= 0) return asLive(stale, true);
    if (lag <= budget.smallLag) {
      const fresh = await read({}, budget.catchUpMs);
      if (fresh) return asLive(fresh, true);
    } else {
      // The store catches up behind the answer; nobody waits for this read, so its failure is dropped.
      read({ stale: 'update_after' }, budget.catchUpMs).catch(() => undefined);
      // An index far behind that has never finished a pass (the embedded store answers a stale
      // read during its first build with the rows so far) counts nothing yet: no partial count.
      if (indexedSeq === 0) return undefined;
    }
    return asLive(stale, false);
  }

  /**
   * Changes each design doc's index has still to process, where the server says so: CouchDB 3
   * reports `view_index.updates_pending.total` in `GET /{db}/_design/{ddoc}/_info` (3.5 does),
   * which reading does not wait for or trigger. A clustered view read's `update_seq` is no
   * substitute there: a view with no rows answers an older sequence however current its index
   * is. Design docs without the figure (the embedded store) are left to the sequence comparison.
   */
  private async pendingByDesignDoc(waitMs: number): Promise<Map<string, number>> {
    const ddocs = [...new Set(INDEXED_VIEWS.map(([ddoc]) => ddoc))];
    const answers = await Promise.all(ddocs.map((ddoc) => designDocIndex(this.couch, this.names.resourceData, `_design/${ddoc}`, AbortSignal.timeout(waitMs))
      .then((index) => index.pending, () => undefined)));
    return new Map(ddocs.flatMap((ddoc, index) => { const pending = answers[index]; return pending === undefined ? [] : [[ddoc, pending] as const]; }));
  }

  private info(): Promise<{ doc_count: number; update_seq: unknown }> {
    return inStore('read the resource database', () => this.db.info());
  }

  /**
   * The database's own counters: one `GET /{db}`, which no index build holds up. Past `waitMs`
   * the store is reported as not answering (503), however the read is stuck.
   */
  async counters(waitMs: number): Promise<StoreCounters> {
    const what = 'read the resource database';
    const signal = AbortSignal.timeout(waitMs);
    try {
      const info = await abortableRequest(this.couch, { db: this.names.resourceData }, signal) as { doc_count: number; update_seq: unknown };
      return { docCount: info.doc_count, updateSeq: info.update_seq as string | number };
    } catch (error) {
      if (signal.aborted) throw storeNotAnswering(waitMs, what, error);
      throw mapCouchError(error, what);
    }
  }

  /**
   * The database's own counters and whether every view has indexed up to its update_seq: one
   * database info read and one stale, empty read per view (CouchDB `stale=ok&update_seq=true`,
   * which PouchDB also takes), each bounded by `staleMs`.
   */
  async indexState(staleMs: number): Promise<IndexState> {
    const [info, pending, ...views] = await Promise.all([
      this.info(),
      this.pendingByDesignDoc(staleMs),
      // A view that does not answer within the budget is being built (see liveSummary).
      ...INDEXED_VIEWS.map(([ddoc, view]) => this.views.read(this.db, 'read the index state', ddoc, view, { limit: 0, stale: 'ok', update_seq: true }, staleMs)
        .catch((error: unknown) => { if ((error as { status?: number }).status === 503) return undefined; throw error; })),
    ]);
    const dbSeq = seqNumber(info.update_seq);
    const staleViews = INDEXED_VIEWS.filter(([ddoc], index) => {
      const left = pending.get(ddoc);
      return left !== undefined ? left > 0 : seqNumber(views[index]?.update_seq) < dbSeq;
    }).map(([ddoc, view]) => `${ddoc}/${view}`);
    return { docCount: info.doc_count, updateSeq: info.update_seq as string | number, viewsCurrent: staleViews.length === 0, staleViews };
  }
}
