/**
 * View reads for Slice (design doc `slice`, design-docs/resource_data/slice): keyset range reads
 * of one index key, plain rows out. Every view key ends in [node_timestamp, codeUnitKey(doc_ID)],
 * and an identity or a tag is keyed as codeUnitKey too (view-keys.ts): it collates the same in
 * CouchDB (ICU) and in JavaScript, so a name matches exactly on both stores and rows of several
 * ranges can be merged here in JavaScript.
 */
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { type StoredDoc, database, type Database } from './documents.js';
import type { ViewReader } from './view-reader.js';
import { getMany } from './resource-writes.js';
import { codeUnitKey } from './view-keys.js';

export type SliceView = 'by_identity' | 'by_tag' | 'by_date';

/** One index key: a view and its key prefix ([] for by_date, [name] for identity and tag, as text: encoded here). */
export interface SliceIndexKey { view: SliceView; prefix: string[] }

/** A position in (node_timestamp, doc_ID) order, the order of every slice range. */
export interface SliceRow { ts: string; id: string }

/** Bounds of the second key element: `from` (a day, inclusive) and `end` (a day or a timestamp, exclusive). */
export interface SliceBounds { from: string | undefined; end: string }

/** Total order of slice rows: JavaScript string order, which the codeUnitKey encoding makes the views' order too. */
export function compareRows(a: SliceRow, b: SliceRow): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class SliceRepository {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames, private readonly views: ViewReader) {
    this.db = database(couch, names.resourceData);
  }

  /**
   * Up to `limit` rows of one index key within the bounds, strictly after `after`. The cursor
   * row is read again (startkey is inclusive; PouchDB has no startkey_docid) and dropped by
   * equality, which stays correct when the cursor document has gone since.
   */
  async rowsAfter(index: SliceIndexKey, bounds: SliceBounds, after: SliceRow | undefined, limit: number): Promise<SliceRow[]> {
    // An empty range (from on or after the end) is answered here: CouchDB refuses startkey > endkey.
    const lower = after?.ts ?? bounds.from;
    if (lower !== undefined && lower >= bounds.end) return [];
    const prefix = index.prefix.map(codeUnitKey);
    const start = after ? [...prefix, after.ts, codeUnitKey(after.id)] : bounds.from !== undefined ? [...prefix, bounds.from] : prefix;
    const result = await this.views.readCurrent<string[], null>(this.db, 'read the slice view', 'slice', index.view, {
      ...(start.length > 0 ? { startkey: start } : {}),
      endkey: [...prefix, bounds.end],
      inclusive_end: false,
      limit: limit + (after ? 1 : 0),
    });
    const rows = result.rows.map((row) => ({ ts: row.key[index.prefix.length] as string, id: row.id }));
    const first = rows[0];
    const rest = after && first && first.ts === after.ts && first.id === after.id ? rows.slice(1) : rows;
    return rest.slice(0, limit);
  }

  /** The stored documents of these doc_IDs (missing ones are absent from the map). */
  documents(ids: string[]): Promise<Map<string, StoredDoc>> {
    return getMany(this.db, ids);
  }
}
