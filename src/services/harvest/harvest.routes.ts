/**
 * GET and POST /harvest/<verb> (spec "Basic Harvest (JSON)"): arguments from the query or the
 * JSON body, the common fields `OK`, `error`, `responseDate`, `request` on every answer.
 * Protocol errors are HTTP 200 with `OK: false` (the spec gives no status; the verbs follow
 * OAI-PMH, where errors are part of a successful exchange); storage failures go to the JSON
 * error exit (503).
 */
import Router from '@koa/router';
import type { NodeContext, NodeState } from '../../http/context.js';
import { describeBodyError, isUnsupportedType, readJsonBody } from '../../http/json-body.js';
import { responseDate } from './harvest-dates.js';
import { HARVEST_VERBS, HarvestError, readArgs, type HarvestArgs, type HarvestVerb } from './harvest-request.js';
import type { HarvestService } from './harvest.service.js';

/** The arguments each verb echoes in `request` (spec path table: "request adds ..."). */
function echo(verb: HarvestVerb, args: HarvestArgs): Record<string, unknown> {
  if (verb === 'getrecord') {
    return { identifier: args.request_ID ?? null, by_doc_ID: args.by_doc_ID ?? false, by_resource_ID: args.by_resource_ID ?? true };
  }
  if (verb === 'listrecords' || verb === 'listidentifiers') {
    return { from: args.from ?? null, until: args.until ?? null, ...(args.resumption_token !== undefined ? { resumption_token: args.resumption_token } : {}) };
  }
  return {};
}

function run(service: HarvestService, verb: HarvestVerb, args: HarvestArgs): Promise<Record<string, unknown>> {
  switch (verb) {
    case 'getrecord': return service.getRecord(args);
    case 'listrecords':
    case 'listidentifiers': return service.list(verb, args);
    case 'identify': return service.identify();
    case 'listmetadataformats': return service.listMetadataFormats();
    case 'listsets': return Promise.resolve(service.listSets());
  }
}

const HARVEST_BODY_LIMIT = 1024 * 1024;

export function harvestRoutes(service: HarvestService, publicUrl: string): Router<NodeState> {
  const router = new Router<NodeState>();
  const handle = async (ctx: NodeContext, verb: HarvestVerb, raw: () => Promise<unknown>): Promise<void> => {
    const request: Record<string, unknown> = { verb, HTTP_request: `${publicUrl}${ctx.path}` };
    try {
      const args = readArgs(verb, await raw());
      Object.assign(request, echo(verb, args));
      const result = await run(service, verb, args);
      ctx.body = { OK: true, responseDate: responseDate(service.now()), request, ...result };
    } catch (error) {
      if (!(error instanceof HarvestError)) throw error;
      ctx.body = { OK: false, error: error.code, message: error.message, responseDate: responseDate(service.now()), request };
    }
    ctx.type = 'application/json; charset=utf-8';
  };
  for (const verb of HARVEST_VERBS) {
    router.get(`/harvest/${verb}`, (ctx) => handle(ctx, verb, async () => ctx.query));
    router.post(`/harvest/${verb}`, (ctx) => handle(ctx, verb, async () => {
      try {
        return await readJsonBody(ctx, HARVEST_BODY_LIMIT);
      } catch (error) {
        if (isUnsupportedType(error)) throw error;
        throw new HarvestError('badArgument', describeBodyError(error, HARVEST_BODY_LIMIT));
      }
    }));
  }
  return router;
}
