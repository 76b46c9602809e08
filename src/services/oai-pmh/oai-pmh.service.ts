/**
 * OAI-PMH 2.0 (spec "OAI-PMH Harvest (XML)"): checks a request against the verb table, runs its
 * handler and returns the plain response data for src/protocol/oai-pmh/render.ts. No Koa here.
 */
import type { NodeRepository } from '../../storage/node-repository.js';
import type { OaiBody, OaiResponse } from '../../protocol/oai-pmh/response.js';
import type { ServiceSettings } from '../service-settings.js';
import { listResponseDate, responseDate } from '../harvest/harvest-dates.js';
import { loadHarvestSettings } from '../harvest/harvest-settings.js';
import { OaiError } from './oai-errors.js';
import { VERB_TABLE, namesListVerb, parseOaiRequest, type OaiRequest } from './verbs.js';
import { docIdentifier, repositoryIdentifierOf, type OaiContext, type OaiDeps } from './oai-context.js';
import type { HarvestService } from '../harvest/harvest.service.js';
import { answerAsBasicHarvest, isJsonRequest } from './json-prefix.js';
import type { HarvestAnswer } from '../harvest/harvest-answer.js';

/** An XML response, or the JSON of Basic Harvest for the JSON metadata prefix (json-prefix.ts). */
export type OaiAnswer = { kind: 'xml'; response: OaiResponse } | { kind: 'json'; answer: HarvestAnswer };

export class OaiPmhService {
  constructor(private readonly deps: OaiDeps, private readonly settings: ServiceSettings, private readonly nodes: NodeRepository, private readonly publicUrl: string, private readonly harvest: HarvestService) {}

  private async context(): Promise<OaiContext> {
    const settings = await loadHarvestSettings(this.settings, this.nodes, 'oai_pmh');
    const location = settings.description.service_data?.schemalocation;
    return {
      ...this.deps,
      settings,
      extensionSchema: typeof location === 'string' && location !== '' ? location : `${this.publicUrl}/schemas/OAI-PMH-LR.xsd`,
      repositoryIdentifier: repositoryIdentifierOf(settings.description.service_endpoint),
    };
  }

  /**
   * One request from its argument pairs (query string or form body), which `readPairs` gives; it
   * may throw an OaiError (a form body too large). Storage errors are thrown.
   */
  async handle(readPairs: () => Promise<[string, string][]>): Promise<OaiAnswer> {
    // One instant for the whole answer, as in Basic Harvest (harvest-answer.ts): a list is pinned
    // to it and its responseDate trails it (listResponseDate), so the next harvest `from` the
    // responseDate misses nothing.
    const now = this.deps.clock();
    const context: OaiContext = { ...await this.context(), clock: () => now };
    const baseURL = context.settings.description.service_endpoint;
    let request: OaiRequest | undefined;
    let pairs: [string, string][] = [];
    let body: OaiBody;
    try {
      pairs = await readPairs();
      request = parseOaiRequest(pairs);
      if (isJsonRequest(request, context.settings.jsonPrefixes)) {
        const identifier = request.args.identifier === undefined ? undefined : docIdentifier(request.args.identifier, context);
        return { kind: 'json', answer: await answerAsBasicHarvest(this.harvest, request, identifier, baseURL) };
      }
      body = await VERB_TABLE[request.verb].handler(request.args, context);
    } catch (error) {
      if (!(error instanceof OaiError)) throw error;
      body = { kind: 'error', errors: [{ code: error.code, message: error.message }] };
      if (!error.echoesArguments) request = undefined;
    }
    const attributes = request ? { verb: request.verb, ...request.args } : undefined;
    // A list's answer, its errors too (noRecordsMatch is where the next harvest starts from).
    return { kind: 'xml', response: { responseDate: namesListVerb(pairs) ? listResponseDate(now) : responseDate(now), request: { baseURL, ...(attributes ? { attributes } : {}) }, body, extensionSchema: context.extensionSchema } };
  }
}
