/**
 * One Basic Harvest answer (spec "Basic Harvest (JSON)"): the common fields `OK`, `error`,
 * `responseDate`, `request` around a verb's result. Used by /harvest/<verb> and by OAI-PMH
 * requests with the JSON metadata prefix, which "behave as basic harvest" (spec "OAI-PMH Harvest
 * (XML)"). Protocol errors are answers too (`OK: false`); anything else is thrown.
 */
import { listResponseDate, responseDate } from './harvest-dates.js';
import { HarvestError, flagArg, isListVerb, readArgs, type HarvestArgs, type HarvestVerb } from './harvest-request.js';
import type { HarvestService } from './harvest.service.js';
import { WholeList, envelopeChunks } from './harvest-whole-list.js';
import { idLookupOf } from '../../domain/id-lookup.js';

/** A flag in the spec's spelling (`T`/`F`, spec "Endpoints"), its default when absent; a value that is no flag as sent. */
function echoFlag(args: HarvestArgs, name: string, fallback: boolean): string {
  try {
    return (flagArg(args, name) ?? fallback) ? 'T' : 'F';
  } catch {
    return String(args[name]);
  }
}

/** Whether the flags ask for a lookup by doc_ID (domain/id-lookup.ts); undefined when the request is refused (a bad flag, both true). */
function looksUpDocId(args: HarvestArgs): boolean | undefined {
  try {
    const byDocId = flagArg(args, 'by_doc_ID');
    const byResourceId = flagArg(args, 'by_resource_ID');
    return byDocId === true && byResourceId === true ? undefined : idLookupOf(byDocId, byResourceId) === 'doc_ID';
  } catch {
    return undefined;
  }
}

/**
 * Both flags in one type, the spec's `T`/`F`, whichever spelling was sent (`T`, `true`, JSON
 * true) or defaulted, saying the lookup made: `by_doc_ID` "T" and `by_resource_ID` "F" for a
 * lookup by doc_ID (`by_doc_ID=T`, or `by_resource_ID=F`), the reverse otherwise. A refused
 * request made none: each flag as sent, absent ones at their defaults.
 */
function echoFlags(args: HarvestArgs): { by_doc_ID: string; by_resource_ID: string } {
  const byDocId = looksUpDocId(args);
  if (byDocId === undefined) return { by_doc_ID: echoFlag(args, 'by_doc_ID', false), by_resource_ID: echoFlag(args, 'by_resource_ID', true) };
  return { by_doc_ID: byDocId ? 'T' : 'F', by_resource_ID: byDocId ? 'F' : 'T' };
}

/** The arguments each verb echoes in `request` (spec path table: "request adds ..."). */
function echo(verb: HarvestVerb, args: HarvestArgs): Record<string, unknown> {
  if (verb === 'getrecord') {
    return { identifier: args.request_ID ?? args.request_id ?? null, ...echoFlags(args) };
  }
  if (isListVerb(verb)) {
    return { from: args.from ?? null, until: args.until ?? null, ...(args.resumption_token !== undefined ? { resumption_token: args.resumption_token } : {}) };
  }
  return {};
}

function run(service: HarvestService, verb: HarvestVerb, args: HarvestArgs, now: Date): Promise<Record<string, unknown> | WholeList> {
  switch (verb) {
    case 'getrecord': return service.getRecord(args);
    case 'listrecords':
    case 'listidentifiers': return service.list(verb, args, now);
    case 'identify': return service.identify();
    case 'listmetadataformats': return service.listMetadataFormats();
    case 'listsets': return Promise.resolve(service.listSets());
  }
}

/** An answer as one JSON object, or as JSON text streamed (a whole list, harvest-whole-list.ts). */
export type HarvestAnswer = { kind: 'object'; body: Record<string, unknown> } | { kind: 'stream'; chunks: AsyncGenerator<string> };

/** `raw` gives the arguments (a query object or a JSON body); it may throw a HarvestError. */
export async function answerHarvest(service: HarvestService, verb: HarvestVerb, httpRequest: string, raw: () => Promise<unknown>): Promise<HarvestAnswer> {
  const request: Record<string, unknown> = { verb, HTTP_request: httpRequest };
  // One instant for the whole answer: a list without `until` holds what was stored by then, and a
  // list's responseDate trails it (harvest-dates.ts, listResponseDate), so a harvester that asks
  // next `from` the responseDate (OAI-PMH harvesting guidelines) misses nothing stored meanwhile.
  const now = service.now();
  const stamp = (): string => (isListVerb(verb) ? listResponseDate(now) : responseDate(now));
  try {
    const args = readArgs(verb, await raw());
    Object.assign(request, echo(verb, args));
    const result = await run(service, verb, args, now);
    if (result instanceof WholeList) return { kind: 'stream', chunks: envelopeChunks({ responseDate: stamp(), request }, result) };
    return { kind: 'object', body: { OK: true, responseDate: stamp(), request, ...result } };
  } catch (error) {
    if (!(error instanceof HarvestError)) throw error;
    return { kind: 'object', body: { OK: false, error: error.code, message: error.message, responseDate: stamp(), request } };
  }
}
