/**
 * OAI-PMH with the JSON metadata prefix of the service description (spec "OAI-PMH Harvest
 * (XML)": the service "behaves as basic harvest and returns the complete document as JSON").
 * GetRecord, ListRecords and ListIdentifiers with that prefix, and the resumption tokens such a
 * list issued, are answered by Basic Harvest: the JSON of /harvest/getrecord, /listrecords or
 * /listidentifiers (its page size, granularity and `resumption_token`), not XML.
 */
import { peekPayload } from '../../domain/resumption-token.js';
import { answerHarvest, type HarvestAnswer } from '../harvest/harvest-answer.js';
import { HarvestError, type HarvestVerb } from '../harvest/harvest-request.js';
import type { HarvestService } from '../harvest/harvest.service.js';
import type { OaiRequest } from './verbs.js';
import { namesJsonPrefix } from './oai-context.js';

const HARVEST_VERB: Partial<Record<OaiRequest['verb'], HarvestVerb>> = { GetRecord: 'getrecord', ListRecords: 'listrecords', ListIdentifiers: 'listidentifiers' };

/** True when this request is answered as Basic Harvest: the JSON prefix, or a token a JSON list issued. */
export function isJsonRequest(request: OaiRequest, jsonPrefixes: string[]): boolean {
  const verb = HARVEST_VERB[request.verb];
  if (verb === undefined) return false;
  const prefix = request.args.metadataPrefix;
  if (prefix !== undefined) return namesJsonPrefix(jsonPrefixes, prefix);
  const token = request.args.resumptionToken;
  return token !== undefined && peekPayload(token)?.s === `harvest:${verb}`;
}

/** The Basic Harvest answer; `identifier` is the doc_ID or resource locator as GetRecord resolves it. */
export function answerAsBasicHarvest(harvest: HarvestService, request: OaiRequest, identifier: string | undefined, baseURL: string): Promise<HarvestAnswer> {
  const verb = HARVEST_VERB[request.verb] as HarvestVerb;
  const { args } = request;
  return answerHarvest(harvest, verb, baseURL, async () => {
    if (args.set !== undefined) throw new HarvestError('noSetHierarchy', 'this node does not support sets');
    if (verb === 'getrecord') {
      return { request_ID: identifier, ...(args.by_doc_ID !== undefined ? { by_doc_ID: args.by_doc_ID } : {}), ...(args.by_resource_ID !== undefined ? { by_resource_ID: args.by_resource_ID } : {}) };
    }
    return { ...(args.from !== undefined ? { from: args.from } : {}), ...(args.until !== undefined ? { until: args.until } : {}), ...(args.resumptionToken !== undefined ? { resumption_token: args.resumptionToken } : {}) };
  });
}
