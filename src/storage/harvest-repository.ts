/**
 * View reads for Basic Harvest and OAI-PMH (design docs `harvest` and `oai-pmh`). Keyset pages
 * only: a page starts at the cursor key (inclusive; PouchDB has no startkey_docid), the cursor
 * row is dropped when it is still there, and no `skip` ever grows with the page number.
 */
import type { Couch } from './couch.js';
import { isNotFound, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { type StoredDoc, database, type Database } from './documents.js';
import type { ViewParams, ViewReader, ViewRow } from './view-reader.js';
import { getMany } from './resource-writes.js';
import { codeUnitKey, textOfKey, type TimeKey } from './view-keys.js';

export type { TimeKey };
export type ViewKey = unknown[];
/** The value of every row of the harvest and oai-pmh views: see isLiveRow. */
export type HarvestValue = 0 | 1;
export interface HarvestRow { key: ViewKey; id: string; deleted: boolean; doc?: StoredDoc }

/** A range of one view: [start, end] inclusive, keys compared by the view's collation. */
export interface ViewRange { ddoc: 'harvest' | 'oai-pmh'; view: string; start: ViewKey; end: ViewKey }

/** Every harvestable document stamped from `from` (inclusive; none: the first) to `until` (inclusive). */
export function timeRange(from: string | undefined, until: string): ViewRange {
  return { ddoc: 'harvest', view: 'by_node_timestamp', start: from ? [from] : [], end: [until, {}] };
}

/** The same for the documents of one lower-cased payload_schema (the view keys it as codeUnitKey). */
export function schemaRange(schema: string, from: string | undefined, until: string): ViewRange {
  const key = codeUnitKey(schema);
  return { ddoc: 'oai-pmh', view: 'by_schema', start: from ? [key, from] : [key], end: [key, until, {}] };
}

/**
 * The value of every row of the harvest and oai-pmh views (design-docs/resource_data/harvest):
 * 1 for a deleted state (marked by Basic Delete, a deletion document, a tombstone), 0 for a live
 * document (isLive in src/domain/resource-document.ts). Basic Obtain, distribution and the daily
 * counts read harvest's views for the live rows: this is the one place that says which they are.
 */
const isDeletedRow = (row: { value: unknown }): boolean => row.value === 1;
export const isLiveRow = (row: { value: unknown }): boolean => row.value === 0;

/**
 * The rows of `harvest/by_resource_locator` (keyed [locator, node_timestamp, codeUnitKey(doc_ID)])
 * whose locator is exactly `locator`, with their documents, oldest first. The view keys the
 * locator as text, and CouchDB's collation takes some other strings for equal (view-keys.ts): the
 * range read may hold rows of an equivalent locator, which are not its documents (spec "Basic
 * Harvest (JSON)", getrecord: an exact string match).
 */
export async function locatorRows(views: ViewReader, db: Database, locator: string): Promise<ViewRow<ViewKey, HarvestValue>[]> {
  const result = await views.readCurrent<ViewKey, HarvestValue>(db, 'read the harvest view', 'harvest', 'by_resource_locator', {
    startkey: [locator], endkey: [locator, {}], include_docs: true,
  });
  return result.rows.filter((row) => row.key[0] === locator);
}

function sameKey(a: ViewKey, b: ViewKey): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index]);
}

/** The view read of a page: from the cursor row (inclusive; dropped by `page`) or the range's start. */
function pageParams(range: ViewRange, after: ViewKey | undefined, limit: number, includeDocs: boolean): ViewParams {
  return { startkey: after ?? range.start, endkey: range.end, inclusive_end: true, limit: limit + 1 + (after ? 1 : 0), include_docs: includeDocs };
}

export class HarvestRepository {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames, private readonly views: ViewReader) {
    this.db = database(couch, names.resourceData);
  }

  /**
   * Up to `limit` rows of `range` strictly after `after` (from the start when absent), plus
   * whether more rows follow. Reads `limit + 1` (+1 for the cursor row) in one request.
   */
  async page(range: ViewRange, after: ViewKey | undefined, limit: number, includeDocs: boolean): Promise<{ rows: HarvestRow[]; more: boolean }> {
    const result = await this.views.readCurrent<ViewKey, HarvestValue>(this.db, `read the ${range.ddoc} view`, range.ddoc, range.view, pageParams(range, after, limit, includeDocs));
    let rows: HarvestRow[] = result.rows.map((row) => ({
      key: row.key, id: row.id, deleted: isDeletedRow(row),
      ...(includeDocs && row.doc ? { doc: row.doc } : {}),
    }));
    const first = rows[0];
    if (after && first && sameKey(first.key, after)) rows = rows.slice(1);
    else if (after) rows = rows.slice(0, limit + 1);
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** Starts reading the `page` a request is expected to ask for next (read-ahead.ts); that request takes it. */
  readAhead(range: ViewRange, after: ViewKey, limit: number, includeDocs: boolean): void {
    this.views.readAhead(this.db, `read the ${range.ddoc} view`, range.ddoc, range.view, pageParams(range, after, limit, includeDocs));
  }

  /** Every document (any state) whose resource locator is exactly `locator`, oldest first. */
  async byResourceLocator(locator: string): Promise<StoredDoc[]> {
    return (await locatorRows(this.views, this.db, locator)).flatMap((row) => (row.doc ? [row.doc] : []));
  }

  async byDocId(id: string): Promise<StoredDoc | undefined> {
    return (await getMany(this.db, [id])).get(id);
  }

  /**
   * The distinct first key parts of the `oai-pmh/by_schema` view (the stored formats), with one
   * document id of each: a key-skipping scan, one `limit: 1` read per format, no reduce.
   */
  async distinctSchemas(): Promise<{ schema: string; id: string }[]> {
    const found: { schema: string; id: string }[] = [];
    let start: ViewKey = [];
    for (let guard = 0; guard < 10000; guard += 1) {
      const result = await this.views.read<ViewKey, HarvestValue>(this.db, 'read the oai-pmh view', 'oai-pmh', 'by_schema', { startkey: start, limit: 1 });
      const row = result.rows[0];
      if (!row) break;
      const key = String(row.key[0]);
      found.push({ schema: textOfKey(key), id: row.id });
      start = [key, {}];
    }
    return found;
  }

  /** The first attachment of a document, as text (payload_placement "attachment"). */
  async firstAttachment(doc: StoredDoc): Promise<string | undefined> {
    const attachments = doc._attachments as Record<string, unknown> | undefined;
    const name = attachments ? Object.keys(attachments).sort()[0] : undefined;
    if (name === undefined) return undefined;
    try {
      const body = await this.db.attachment.get(doc._id, name);
      return Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw mapCouchError(error, `read the attachment of ${doc._id}`);
    }
  }
}
