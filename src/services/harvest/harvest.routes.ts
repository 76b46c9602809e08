/**
 * GET and POST /harvest/<verb> (spec "Basic Harvest (JSON)"): arguments from the query or the
 * JSON body, the common fields `OK`, `error`, `responseDate`, `request` on every answer.
 * Protocol errors are HTTP 200 with `OK: false` (the spec gives no status; the verbs follow
 * OAI-PMH, where errors are part of a successful exchange); storage failures go to the JSON
 * error exit (503).
 */
import { sendJsonStream } from '../../http/json-stream.js';
import Router from '@koa/router';
import type { NodeContext, NodeState } from '../../http/context.js';
import { bodyRefusal, isUnsupportedType, readJsonBody } from '../../http/json-body.js';
import { HARVEST_VERBS, HarvestError, type HarvestVerb } from './harvest-request.js';
import type { HarvestService } from './harvest.service.js';
import { answerHarvest, type HarvestAnswer } from './harvest-answer.js';
import type { Gate } from '../../http/gate.js';
import type { RequestSlots } from '../../http/request-slots.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';

/** The largest harvest request body (POST arguments), read before anything else. */
const HARVEST_BODY_LIMIT = 1024 * 1024;

/** A Basic Harvest answer as JSON: one object, or a whole list streamed as the client reads it (constant memory; the generator stops when the client goes). */
export function sendHarvestAnswer(ctx: NodeContext, answer: HarvestAnswer): void {
  if (answer.kind === 'stream') {
    sendJsonStream(ctx, answer.chunks);
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = answer.body;
}

/** The verbs answered in one of the heavy requests' slots (http/request-slots.ts): the lists. */
const LIST_VERBS: ReadonlySet<HarvestVerb> = new Set(['listrecords', 'listidentifiers']);

export function harvestRoutes(service: HarvestService, publicUrl: string, settings: ServiceSettings, gate: Gate, slots: RequestSlots): Router<NodeState> {
  const router = new Router<NodeState>();
  // A harvest description that asks for basicauth restricts reading to the node's accounts, as slice's does.
  const restricted = gate.can('read', { when: credentialsRequired(settings, 'harvest') });
  const handle = async (ctx: NodeContext, verb: HarvestVerb, raw: () => Promise<unknown>): Promise<void> => {
    const answer = () => answerHarvest(service, verb, `${publicUrl}${ctx.path}`, raw);
    sendHarvestAnswer(ctx, await (LIST_VERBS.has(verb) ? slots.run(ctx, answer) : answer()));
  };
  for (const verb of HARVEST_VERBS) {
    router.get(`/harvest/${verb}`, restricted, (ctx) => handle(ctx, verb, async () => ctx.query));
    router.post(`/harvest/${verb}`, restricted, (ctx) => handle(ctx, verb, async () => {
      try {
        return await readJsonBody(ctx, HARVEST_BODY_LIMIT);
      } catch (error) {
        if (isUnsupportedType(error)) throw error;
        const refusal = bodyRefusal(error, HARVEST_BODY_LIMIT);
        // Not read to its end: the connection closes after the answer (as the error exit does for a 413).
        if (refusal.code === 'payload_too_large') ctx.set('Connection', 'close');
        throw new HarvestError('badArgument', refusal.message);
      }
    }));
  }
  return router;
}
