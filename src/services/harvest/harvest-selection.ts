/**
 * The selection both harvests share (spec "Basic Harvest (JSON)", listrecords rules 4-5, and
 * "OAI-PMH Harvest (XML)", ListRecords): a node_timestamp range over one view, both bounds
 * inclusive, never before the earliest datestamp, deleted rows skipped when the deleted-data
 * policy is `no`; walked in keyset pages.
 */
import { nodeTimestamp } from '../../domain/timestamps.js';
import { schemaRange, timeRange, type HarvestRepository, type HarvestRow, type ViewKey, type ViewRange } from '../../storage/harvest-repository.js';
import type { TimeBounds } from './harvest-dates.js';

export interface Selection {
  /** Lower-cased payload_schema, or undefined for every document (JSON harvest); `oai_dc` selects every document too. */
  schema: string | undefined;
  from: string | undefined;
  /** The inclusive upper node_timestamp; a request without `until` is pinned to its first call's time. */
  until: string;
}

export function selectionOf(bounds: TimeBounds, schema: string | undefined, earliestBound: string | undefined, now: Date): Selection {
  const from = earliestBound && (!bounds.from || bounds.from < earliestBound) ? earliestBound : bounds.from;
  return { schema, from, until: bounds.until ?? nodeTimestamp(now) };
}

/** oai_dc is available for every record (src/services/oai-pmh/oai-dc.ts): its list is every document. */
const EVERY_DOCUMENT = 'oai_dc';

function rangeOf(selection: Selection): ViewRange {
  const { schema, from, until } = selection;
  return schema === undefined || schema === EVERY_DOCUMENT ? timeRange(from, until) : schemaRange(schema, from, until);
}

export interface SelectedPage { rows: HarvestRow[]; last: ViewKey | undefined; more: boolean }

/**
 * One page of up to `size` rows after `after`. With deleted rows hidden (policy `no`) it reads
 * on until the page is full or the range ends, so a page is never empty while rows remain.
 */
export async function selectPage(store: HarvestRepository, selection: Selection, after: ViewKey | undefined, size: number, includeDocs: boolean, showDeleted: boolean): Promise<SelectedPage> {
  // An earliest datestamp or a default until may leave an empty range (CouchDB refuses start > end).
  if (selection.from !== undefined && selection.from > selection.until) return { rows: [], last: after, more: false };
  const range = rangeOf(selection);
  const rows: HarvestRow[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.page(range, cursor, size - rows.length, includeDocs);
    for (const row of page.rows) if (showDeleted || !row.deleted) rows.push(row);
    cursor = page.rows.at(-1)?.key ?? cursor;
    if (!page.more) return { rows, last: cursor, more: false };
    if (rows.length >= size) return { rows, last: cursor, more: true };
  }
}

/**
 * Starts reading the page `selectPage(store, selection, after, size, includeDocs, …)` will read
 * first, for a harvester following a list by its tokens: one that has resumed a list once is
 * likely to ask for the next page, whose read then overlaps the sending of this one
 * (src/storage/read-ahead.ts). A first page is not read ahead: an incremental harvest (`from`
 * yesterday) mostly ends there.
 */
export function readAheadPage(store: HarvestRepository, selection: Selection, after: ViewKey, size: number, includeDocs: boolean): void {
  if (selection.from !== undefined && selection.from > selection.until) return;
  store.readAhead(rangeOf(selection), after, size, includeDocs);
}

/** The oldest harvestable node_timestamp (Identify earliestDatestamp), or undefined when none. */
export async function earliestTimestamp(store: HarvestRepository, earliestBound: string | undefined, showDeleted: boolean): Promise<string | undefined> {
  const selection: Selection = { schema: undefined, from: earliestBound, until: '9999-12-31T23:59:59.999999Z' };
  const page = await selectPage(store, selection, undefined, 1, false, showDeleted);
  const first = page.rows[0]?.key[0];
  return typeof first === 'string' ? first : undefined;
}
