/**
 * ListRecords and ListIdentifiers (spec "OAI-PMH Harvest (XML)": date checks and inclusive range
 * as for basic harvest, non-matching formats skipped, deleted status only for matching formats,
 * an empty result is noRecordsMatch, never cannotDisseminateFormat), paged with stateless
 * keyset resumption tokens (OAI-PMH 2.0 §3.5): `cursor` counts the records returned before the page,
 * `completeListSize` is given on the last page (where it is known for free), and the last page
 * carries an empty resumptionToken.
 */
import { TOKEN_LIFETIME_MS } from '../../domain/resumption-token.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { OaiBody, OaiHeader, OaiRecord, OaiToken } from '../../protocol/oai-pmh/response.js';
import { checkDateRange, responseDate } from '../harvest/harvest-dates.js';
import { headerOf, publicDocument } from '../harvest/harvest-records.js';
import { selectPage, selectionOf } from '../harvest/harvest-selection.js';
import { decodeContinuation, encodeContinuation, type ListState } from '../harvest/harvest-paging.js';
import type { HarvestRow } from '../../storage/harvest-repository.js';
import { BadArgument, BadResumptionToken, NoRecordsMatch, NoSetHierarchy } from './oai-errors.js';
import { checkPrefix, isJsonPrefix, showDeleted, type OaiContext } from './oai-context.js';

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
  const header = headerOf(row.id, String(row.key[row.key.length - 2]), row.deleted, context.settings.granularity);
  return { identifier: header.identifier, datestamp: header.datestamp, deleted: row.deleted };
}

/** Records of a page; a live record whose data cannot be emitted is left out (and logged). */
async function pageRecords(rows: HarvestRow[], json: boolean, context: OaiContext): Promise<OaiRecord[]> {
  const live = rows.filter((row) => !row.deleted && row.doc);
  const fragments = json ? [] : await context.metadata.emitAll(live.map((row) => row.doc as StoredDoc), context.settings.allowPrivateFetch);
  const records: OaiRecord[] = [];
  let index = 0;
  for (const row of rows) {
    const header = rowHeader(row, context);
    if (row.deleted || !row.doc) { records.push({ header }); continue; }
    if (json) { records.push({ header, metadata: { json: publicDocument(row.doc) } }); continue; }
    const fragment = fragments[index++];
    if (fragment?.ok) records.push({ header, metadata: { xml: fragment.xml } });
    else context.logger.warn({ doc_ID: row.id, reason: fragment?.reason, detail: fragment && !fragment.ok ? fragment.detail : undefined }, 'OAI-PMH ListRecords: record left out, its metadata cannot be disseminated');
  }
  return records;
}

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
  const json = state.selection.schema === undefined;
  const withDocs = verb === 'ListRecords';
  // Records whose data cannot be emitted are left out, so a page may come back empty: read on.
  for (;;) {
    const page = await selectPage(context.store, state.selection, after, context.settings.pageSize, withDocs, showDeleted(context));
    const records = withDocs ? await pageRecords(page.rows, json, context) : [];
    const items = withDocs ? records.length : page.rows.length;
    if (items === 0 && page.more && page.last) { after = page.last; continue; }
    if (items === 0) {
      if (resumed) throw new BadResumptionToken('the list has no more records');
      throw new NoRecordsMatch('no record matches the request');
    }
    let token: OaiToken | undefined;
    if (page.more && page.last) {
      const value = encodeContinuation(context.tokens, service, state, page.last, count + items);
      token = { value, cursor: count, expirationDate: responseDate(new Date(context.clock().getTime() + TOKEN_LIFETIME_MS)) };
    } else if (resumed || count > 0) {
      token = { value: '', cursor: count, completeListSize: count + items };
    }
    return withDocs
      ? { kind: 'ListRecords', records, ...(token ? { token } : {}) }
      : { kind: 'ListIdentifiers', headers: page.rows.map((row) => rowHeader(row, context)), ...(token ? { token } : {}) };
  }
}
