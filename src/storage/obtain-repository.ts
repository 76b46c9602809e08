/**
 * View reads for Basic Obtain: keyset pages and lookups, plain objects out.
 *
 * Obtain owns no design doc: it reads Basic Harvest's two views, whose rows are every harvestable
 * document with the value 1 for the deleted ones (design-docs/resource_data/harvest), and keeps
 * the rows with value 0, which are exactly the live documents (spec "Basic Obtain", rule 4;
 * src/domain/resource-document.ts isLive; the drift test in test/design-docs keeps them equal).
 * CouchDB indexes each design doc in its own pass over the database, and CouchDB 3 runs that pass
 * after every write whether or not it is queried (ken): an obtain design doc of its own, with the
 * same keys, was one more pass per write, and its first page after a bulk publish waited for it
 * (RETIRED_DESIGN_DOCS in design-docs.ts).
 */
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { type StoredDoc, database, type Database } from './documents.js';
import type { ViewParams, ViewReader } from './view-reader.js';
import { isLiveRow, locatorRows, type HarvestValue, type TimeKey } from './harvest-repository.js';

export type { TimeKey };
export interface Row { key: TimeKey; id: string; doc?: StoredDoc }

/** A read of `newestFirst`: from the cursor row (inclusive, dropped after) or the newest row. */
function newestFirstParams(wanted: number, cursor: TimeKey | undefined, includeDocs: boolean): ViewParams {
  return { descending: true, limit: wanted + (cursor ? 1 : 0), include_docs: includeDocs, ...(cursor ? { startkey: cursor } : {}) };
}

export class ObtainRepository {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames, private readonly views: ViewReader) {
    this.db = database(couch, names.resourceData);
  }

  /**
   * Up to `limit` live documents, most recent first, strictly after `after` in that order: as many
   * as there are, however many deleted rows lie between them (read on until the page is full or
   * the view ends). Each read takes the cursor row again (startkey is inclusive; PouchDB has no
   * startkey_docid) and drops it, which stays correct even when the cursor document has since gone.
   */
  async newestFirst(limit: number, after: TimeKey | undefined, includeDocs: boolean): Promise<Row[]> {
    const live: Row[] = [];
    let cursor = after;
    for (;;) {
      const wanted = limit - live.length;
      const result = await this.views.readCurrent<TimeKey, HarvestValue>(this.db, 'read the harvest view', 'harvest', 'by_node_timestamp', newestFirstParams(wanted, cursor, includeDocs));
      const first = result.rows[0];
      const firstKey = first?.key;
      // Only the cursor row is dropped; the rest keep the view's own collation order (CouchDB's ICU
      // order may differ from JavaScript's string order among equal timestamps).
      const rows = cursor && firstKey && firstKey[0] === cursor[0] && firstKey[1] === cursor[1] ? result.rows.slice(1) : result.rows;
      const read = rows.slice(0, wanted);
      for (const row of read) {
        if (isLiveRow(row)) live.push({ key: row.key, id: row.id, ...(includeDocs && row.doc ? { doc: row.doc } : {}) });
      }
      const last = read[read.length - 1];
      if (live.length >= limit || read.length < wanted || !last) return live;
      cursor = last.key;
    }
  }

  /** Starts the first read of `newestFirst(limit, after, includeDocs)`, which a request is expected to make next (read-ahead.ts). */
  readAhead(limit: number, after: TimeKey, includeDocs: boolean): void {
    this.views.readAhead(this.db, 'read the harvest view', 'harvest', 'by_node_timestamp', newestFirstParams(limit, after, includeDocs));
  }

  /** The newest live key: the snapshot a token remembers to notice documents added between pages. */
  async newestKey(): Promise<TimeKey | undefined> {
    return (await this.newestFirst(1, undefined, false))[0]?.key;
  }

  /** Live documents of each resource locator, oldest first (one range read per locator, in parallel). */
  async byResourceLocators(locators: string[]): Promise<Map<string, StoredDoc[]>> {
    const found = new Map<string, StoredDoc[]>();
    await Promise.all([...new Set(locators)].map(async (locator) => {
      const docs = (await locatorRows(this.views, this.db, locator)).flatMap((row) => (row.doc && isLiveRow(row) ? [row.doc] : []));
      if (docs.length > 0) found.set(locator, docs);
    }));
    return found;
  }
}
