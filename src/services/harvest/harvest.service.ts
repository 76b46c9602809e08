/**
 * Basic Harvest (spec "Basic Harvest (JSON)"): the six verbs as use cases returning the
 * verb-specific part of the response; protocol errors are thrown as HarvestError. Beyond the
 * spec, listrecords pages by `doc_limit` and listidentifiers by `id_limit`, with stateless keyset
 * resumption tokens (`resumption_token`, null on the last page of a resumed list), like Basic Obtain, while the
 * service description's `flow_control` is not false; with it false, as the spec has it, a list is
 * answered whole (harvest-whole-list.ts).
 */
import type { NodeRepository } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { TokenCodec } from '../../domain/resumption-token.js';
import type { Clock } from '../../domain/timestamps.js';
import type { ServiceSettings } from '../service-settings.js';
import { SECONDS, checkDateRange, datestamp } from './harvest-dates.js';
import type { HarvestRepository, HarvestRow } from '../../storage/harvest-repository.js';
import { HarvestError, dateArg, flagArg, stringArg, tokenArg, type HarvestArgs } from './harvest-request.js';
import { headerOf, headerOfDoc, type RecordHeader } from './harvest-records.js';
import { isDeleted, publicForm } from '../../domain/resource-document.js';
import { resolveIdentifier } from './harvest-lookup.js';
import { earliestTimestamp, readAheadPage, selectPage, selectionOf } from './harvest-selection.js';
import { decodeContinuation, encodeContinuation, type ListState } from './harvest-paging.js';
import { loadHarvestSettings, type HarvestSettings } from './harvest-settings.js';
import { WHOLE_LIST_CHUNK, wholeList, type WholeList } from './harvest-whole-list.js';
import { adminEmailOf } from '../../domain/admin-email.js';

type Body = Record<string, unknown>;
interface JsonRecord { header: RecordHeader; resource_data?: Record<string, unknown> }

/**
 * Basic Harvest's record datestamps are always at 1 second (spec "Basic Harvest (JSON)": the
 * header's `datestamp` has "granularity 1 second"; Limits: "response datestamps are 1 second").
 * The service's granularity governs the `from`/`until` a request may give, and Identify. OAI-PMH
 * XML keeps its datestamps at Identify's granularity, as OAI-PMH 2.0 §3.3 requires.
 */
const RECORD_GRANULARITY = SECONDS;

function record(doc: StoredDoc): JsonRecord {
  const header = headerOfDoc(doc, RECORD_GRANULARITY);
  // A deleted document is reported by its header only: its data MUST NOT be returned (spec "States and transitions").
  return isDeleted(doc) ? { header } : { header, resource_data: publicForm(doc) };
}

export class HarvestService {
  constructor(
    private readonly store: HarvestRepository,
    private readonly settings: ServiceSettings,
    private readonly nodes: NodeRepository,
    private readonly tokens: TokenCodec,
    private readonly clock: Clock,
  ) {}

  now(): Date {
    return this.clock();
  }

  private load(): Promise<HarvestSettings> {
    return loadHarvestSettings(this.settings, this.nodes, 'harvest');
  }

  /** Getrecord rules 1-4. */
  async getRecord(args: HarvestArgs): Promise<Body> {
    if (args.request_ID !== undefined && args.request_id !== undefined) throw new HarvestError('badArgument', 'give request_ID or request_id, not both');
    const identifier = stringArg(args, 'request_ID') ?? stringArg(args, 'request_id');
    const byDocId = flagArg(args, 'by_doc_ID');
    const byResourceId = flagArg(args, 'by_resource_ID');
    if (identifier === undefined) throw new HarvestError('badArgument', 'request_ID is required');
    if (byDocId === true && byResourceId === true) throw new HarvestError('badArgument', 'by_doc_ID and by_resource_ID cannot both be true');
    const settings = await this.load();
    const docs = await resolveIdentifier(this.store, identifier, { byDocId, byResourceId }, settings.deletedPolicy !== 'no', settings.earliestBound);
    if (docs.length === 0) throw new HarvestError('idDoesNotExist', `no document for ${identifier.slice(0, 200)}`);
    return { getrecord: { record: docs.map((doc) => record(doc)) } };
  }

  /** Listrecords and listidentifiers rules 1-6: one page per call, or the whole list without flow control. */
  /** `now`: the request's instant, which pins a list without `until` and is its responseDate (harvest-answer.ts). */
  async list(verb: 'listrecords' | 'listidentifiers', args: HarvestArgs, now: Date = this.clock()): Promise<Body | WholeList> {
    const settings = await this.load();
    const service = `harvest:${verb}`;
    const token = tokenArg(args);
    let state: ListState;
    let after: unknown[] | undefined;
    let count = 0;
    if (token !== undefined && !settings.flowControl) {
      throw new HarvestError('badResumptionToken', 'this node does not support flow control (harvest service_data.flow_control is false): each list is answered whole');
    }
    if (token !== undefined) {
      const continuation = decodeContinuation(this.tokens, service, token);
      if ('error' in continuation) throw new HarvestError('badResumptionToken', continuation.error);
      ({ state, after, count } = continuation);
      for (const name of ['from', 'until'] as const) {
        const given = dateArg(args, name);
        if (given !== undefined && given !== state.args[name]) throw new HarvestError('badArgument', `${name} differs from the request the resumption token continues`);
      }
    } else {
      const from = dateArg(args, 'from');
      const until = dateArg(args, 'until');
      const dates = checkDateRange(from, until, settings.granularity);
      if (!dates.ok) throw new HarvestError('badArgument', dates.message);
      state = { selection: selectionOf(dates.bounds, undefined, settings.earliestBound, now), args: { from, until } };
    }
    const withDocs = verb === 'listrecords';
    const showDeleted = settings.deletedPolicy !== 'no';
    // Records by doc_limit, headers by id_limit; the token names its verb, so each page of a list is of one size.
    const size = withDocs ? settings.pageSize : settings.idPageSize;
    const page = await selectPage(this.store, state.selection, after, settings.flowControl ? size : WHOLE_LIST_CHUNK, withDocs, showDeleted);
    if (page.rows.length === 0 && token === undefined) throw new HarvestError('noRecordsMatch', 'no document matches the request');
    const item = (row: HarvestRow): Body => (withDocs && row.doc
      ? { record: record(row.doc) }
      : { header: headerOf(row.id, String(row.key[0]), row.deleted, RECORD_GRANULARITY) });
    if (!settings.flowControl) return wholeList(verb, this.store, state.selection, page, item, withDocs, showDeleted);
    // A resumed list is likely followed on: the next request's selectPage starts with this read.
    if (token !== undefined && page.more && page.last) readAheadPage(this.store, state.selection, page.last, size, withDocs);
    const items = page.rows.map(item);
    const body: Body = { [verb]: items };
    if (page.more && page.last) body.resumption_token = encodeContinuation(this.tokens, service, state, page.last, count + page.rows.length);
    else if (token !== undefined) body.resumption_token = null;
    return body;
  }

  /** Identify: every field the spec lists, from the node description and the harvest service description. */
  async identify(): Promise<Body> {
    const settings = await this.load();
    const { node, description } = settings;
    const earliest = await earliestTimestamp(this.store, settings.earliestBound, settings.deletedPolicy !== 'no');
    return {
      identify: {
        node_id: node.node_id,
        repositoryName: node.node_name,
        baseURL: description.service_endpoint,
        protocolVersion: '2.0',
        service_version: description.service_version,
        earliestDatestamp: datestamp(earliest ?? settings.earliestBound ?? new Date(this.clock()).toISOString(), settings.granularity),
        deletedRecord: settings.deletedPolicy,
        granularity: settings.granularity,
        adminEmail: adminEmailOf(String(node.node_admin_identity ?? '')) ?? node.node_admin_identity,
      },
    };
  }

  /** The `metadataformats` structure of the service description, as it is. */
  async listMetadataFormats(): Promise<Body> {
    const settings = await this.load();
    const formats = settings.description.service_data?.metadataformats;
    return { listmetadataformats: Array.isArray(formats) ? formats : [] };
  }

  listSets(): never {
    throw new HarvestError('noSetHierarchy', 'this node does not support sets');
  }
}
