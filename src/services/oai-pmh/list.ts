/**
 * ListRecords and ListIdentifiers (spec "OAI-PMH Harvest (XML)": date checks and inclusive range
 * as for basic harvest, non-matching formats skipped, deleted status only for matching formats,
 * an empty result is noRecordsMatch, never cannotDisseminateFormat), paged with stateless
 * keyset resumption tokens (OAI-PMH 2.0 §3.5): `cursor` counts the records returned before the page,
 * `completeListSize` is given on the last page (where it is known for free), and the last page
 * carries an empty resumptionToken.
 */
import { TOKEN_LIFETIME_MS } from '../../domain/resumption-token.js';
import type { OaiBody, OaiHeader, OaiRecord, OaiToken } from '../../protocol/oai-pmh/response.js';
import { checkDateRange, responseDate } from '../harvest/harvest-dates.js';
import { headerOf } from '../harvest/harvest-records.js';
import { publicForm } from '../../domain/resource-document.js';
import { readAheadPage, selectPage, selectionOf } from '../harvest/harvest-selection.js';
import { decodeContinuation, encodeContinuation, type ListState } from '../harvest/harvest-paging.js';
import type { HarvestRow } from '../../storage/harvest-repository.js';
import { BadArgument, BadResumptionToken, NoRecordsMatch, NoSetHierarchy } from './oai-errors.js';
import { asOaiHeader, checkPrefix, isJsonPrefix, showDeleted, type OaiContext } from './oai-context.js';

type ListVerb = 'ListRecords' | 'ListIdentifiers';

function start(args: Record<string, string>, context: OaiContext): ListState {
  const prefix = checkPrefix(args.metadataPrefix as string);
  if (args.set !== undefined) throw new NoSetHierarchy('this node does not support sets');
  const dates = checkDateRange(args.from, args.until, context.settings.granularity);
  if (!dates.ok) throw new BadArgument(dates.message);
  const schema = isJsonPrefix(context, prefix) ? undefined : prefix.toLowerCase();
  return { selection: selectionOf(dates.bounds, schema, context.settings.earliestBound, context.clock()), args: { from: args.from, until: args.until, metadataPrefix: prefix } };
}

function rowHeader(row: HarvestRow, context: OaiContext): OaiHeader {
  return asOaiHeader(headerOf(row.id, String(row.key[row.key.length - 2]), row.deleted, context.settings.granularity));
}

interface Item { row: HarvestRow; record: OaiRecord }

/**
 * The records of some rows. A live record whose metadata cannot be emitted is left out (and
 * logged) by both verbs alike: ListIdentifiers is "otherwise equal to ListRecords" (spec), so
 * it selects by the same emission.
 */
async function emitRows(rows: HarvestRow[], prefix: string | undefined, context: OaiContext, leftOut: LeftOut[]): Promise<Item[]> {
  const json = prefix === undefined;
  const emitted = json ? [] : await context.metadata.recordMetadata(rows.map((row) => (row.deleted ? undefined : row.doc)), prefix, context.settings.allowPrivateFetch);
  const items: Item[] = [];
  for (const [index, row] of rows.entries()) {
    const header = rowHeader(row, context);
    if (row.deleted || !row.doc) { items.push({ row, record: { header } }); continue; }
    if (json) { items.push({ row, record: { header, metadata: { json: publicForm(row.doc) } } }); continue; }
    const metadata = emitted[index];
    if (metadata?.ok) items.push({ row, record: { header, metadata: metadata.metadata } });
    else leftOut.push({ doc_ID: row.id, reason: metadata?.reason, detail: metadata?.detail });
  }
  return items;
}

/**
 * Up to `size` (the verb's page size) + 2 emittable records after `after`, reading on past
 * records left out. Looking two records ahead means a token is issued only when records will follow (never a resumed
 * list that turns out empty) and a last page never holds a single record: when one record
 * would be left for the next page it is included in this one (the npm oai-pmh client fails on
 * a page of exactly one record). A request reads at most SCAN_BUDGET rows: past it, the records
 * found so far are answered with a token that continues after the last row read (OAI-PMH 2.0
 * §3.5: a list may be answered in incomplete parts), so a format whose records are mostly left
 * out does not make one anonymous request read all of them.
 */
async function collect(state: ListState, after: unknown[] | undefined, size: number, context: OaiContext, leftOut: LeftOut[], readAhead: boolean): Promise<{ items: Item[]; more: boolean; resumeAfter?: unknown[] }> {
  const items: Item[] = [];
  let cursor = after;
  for (let scanned = 0; ;) {
    const page = await selectPage(context.store, state.selection, cursor, size + 2 - items.length, true, showDeleted(context));
    // The next page starts after this page's size-th row unless a record is left out. Its read
    // starts now, before the records are emitted (a crosswalk parses each one), so the store
    // reads it while the node works; a guess proved wrong costs one read, which nobody takes.
    const guess = items.length === 0 && page.more ? page.rows[size - 1]?.key : undefined;
    if (readAhead && guess) readAheadPage(context.store, state.selection, guess, size + 2, true);
    items.push(...(await emitRows(page.rows, state.selection.schema, context, leftOut)));
    scanned += page.rows.length;
    cursor = page.last;
    if (items.length >= size + 2) return { items: items.slice(0, size), more: true };
    if (!page.more || !page.last) return { items, more: false };
    if (scanned >= SCAN_BUDGET) return { items, more: true, resumeAfter: page.last };
  }
}

/** Rows one list request reads at most (collect). */
const SCAN_BUDGET = 2000;

interface LeftOut { doc_ID: string; reason: string | undefined; detail: string | undefined }

export async function list(verb: ListVerb, args: Record<string, string>, context: OaiContext): Promise<OaiBody> {
  const service = `oai:${verb}`;
  let state: ListState;
  let after: unknown[] | undefined;
  let count = 0;
  const resumed = args.resumptionToken !== undefined;
  if (resumed) {
    const continuation = decodeContinuation(context.tokens, service, args.resumptionToken as string);
    if ('error' in continuation) throw new BadResumptionToken(continuation.error);
    ({ state, after, count } = continuation);
  } else {
    state = start(args, context);
  }
  const leftOut: LeftOut[] = [];
  // ListRecords pages by doc_limit, ListIdentifiers by id_limit (harvest-settings.ts); the token is bound to its verb.
  const size = verb === 'ListRecords' ? context.settings.pageSize : context.settings.idPageSize;
  const { items, more, resumeAfter } = await collect(state, after, size, context, leftOut, resumed);
  // One line per request, not one per record: a format whose records cannot be disseminated
  // would otherwise write a line per record for every harvest.
  if (leftOut.length > 0) context.logger.warn({ left_out: leftOut.length, first: leftOut.slice(0, 5) }, `OAI-PMH ${verb}: records left out, their metadata cannot be disseminated`);
  // An empty list is noRecordsMatch (spec "OAI-PMH Harvest (XML)"), also when it ends after parts
  // that held no record (collect's SCAN_BUDGET): its last part would otherwise say
  // completeListSize="0", which OAI-PMH.xsd refuses (a positiveInteger).
  if (items.length === 0 && !more && count === 0) throw new NoRecordsMatch('no record matches the request');
  // A resumed list that turns out empty after records were sent (its last records were deleted
  // since the token was issued, which re-stamps them past the list's end) ends normally: no
  // records, empty token.
  let token: OaiToken | undefined;
  const resumeKey = resumeAfter ?? items.at(-1)?.row.key;
  if (more && resumeKey) {
    // The next request's collect() starts with this read (a resumed list is likely followed on);
    // collect() began it already unless its guess was wrong (the same read is not started twice).
    if (resumed) readAheadPage(context.store, state.selection, resumeKey, size + 2, true);
    const value = encodeContinuation(context.tokens, service, state, resumeKey, count + items.length);
    token = { value, cursor: count, expirationDate: responseDate(new Date(context.clock().getTime() + TOKEN_LIFETIME_MS)) };
  } else if (resumed || count > 0) {
    token = { value: '', cursor: count, completeListSize: count + items.length };
  }
  return verb === 'ListRecords'
    ? { kind: 'ListRecords', records: items.map((item) => item.record), ...(token ? { token } : {}) }
    : { kind: 'ListIdentifiers', headers: items.map((item) => item.record.header), ...(token ? { token } : {}) };
}
