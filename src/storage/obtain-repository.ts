/** View reads for Basic Obtain (design doc `obtain`): keyset pages and lookups, plain objects out. */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import type { StoredDoc } from './documents.js';
import type { ViewReader } from './view-reader.js';

export type TimeKey = [string, string];
export interface Row { key: TimeKey; id: string; doc?: StoredDoc }

export class ObtainRepository {
  private readonly db: DocumentScope<unknown>;

  constructor(couch: Couch, names: DatabaseNames, private readonly views: ViewReader) {
    this.db = couch.use(names.resourceData);
  }

  /**
   * Up to `limit` live documents, most recent first, strictly after `after` in that order. The
   * cursor row itself is read again (startkey is inclusive; PouchDB has no startkey_docid) and
   * dropped, which stays correct even when the cursor document has since gone.
   */
  async newestFirst(limit: number, after: TimeKey | undefined, includeDocs: boolean): Promise<Row[]> {
    const result = await this.views.readCurrent(this.db, 'read the obtain view', 'obtain', 'by_node_timestamp', {
      descending: true, limit: limit + (after ? 1 : 0), include_docs: includeDocs, ...(after ? { startkey: after } : {}),
    });
    const rows = result.rows.map((row) => ({ key: row.key as unknown as TimeKey, id: row.id, ...(includeDocs ? { doc: row.doc as unknown as StoredDoc } : {}) }));
    // Only the cursor row is dropped; the rest keep the view's own collation order (CouchDB's ICU
    // order may differ from JavaScript's string order among equal timestamps).
    const first = rows[0];
    const rest = after && first && first.key[0] === after[0] && first.key[1] === after[1] ? rows.slice(1) : rows;
    return rest.slice(0, limit);
  }

  /** The newest live key: the snapshot a token remembers to notice documents added between pages. */
  async newestKey(): Promise<TimeKey | undefined> {
    return (await this.newestFirst(1, undefined, false))[0]?.key;
  }

  /** Live documents of each resource locator, oldest first (one range read per locator, in parallel). */
  async byResourceLocators(locators: string[]): Promise<Map<string, StoredDoc[]>> {
    const found = new Map<string, StoredDoc[]>();
    await Promise.all([...new Set(locators)].map(async (locator) => {
      const result = await this.views.readCurrent(this.db, 'read the obtain view', 'obtain', 'by_resource_locator', {
        startkey: [locator], endkey: [locator, {}], include_docs: true,
      });
      if (result.rows.length > 0) found.set(locator, result.rows.map((row) => row.doc as unknown as StoredDoc));
    }));
    return found;
  }
}
