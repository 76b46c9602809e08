/** GET and POST /obtain (spec "Basic Obtain"): parse, call the use case, send an object or a stream. */
import Router from '@koa/router';
import type { NodeState, NodeContext } from '../../http/context.js';
import { bodyRefusal, isUnsupportedType, readJsonBody } from '../../http/json-body.js';
import { sendJsonStream } from '../../http/json-stream.js';
import { specRefusal } from '../../errors/app-error.js';
import { fromBody, fromQuery, requestLimitsOf, type ObtainRequest } from './obtain-request.js';
import type { ObtainResponse, ObtainService } from './obtain.service.js';
import type { Gate } from '../../http/gate.js';
import type { RequestSlots } from '../../http/request-slots.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';

function send(ctx: NodeContext, response: ObtainResponse): void {
  if (response.kind === 'stream') {
    sendJsonStream(ctx, response.chunks);
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = response.body;
}

/**
 * `slots`: a list (no ID, or several) is read in one of the heavy requests' slots
 * (http/request-slots.ts); obtain by one ID never waits for them.
 */
export function obtainRoutes(service: ObtainService, settings: ServiceSettings, gate: Gate, slots: RequestSlots): Router<NodeState> {
  const router = new Router<NodeState>();
  // An obtain description that asks for basicauth restricts reading to the node's accounts, as slice's does.
  const restricted = gate.can('read', { when: credentialsRequired(settings, 'obtain') });
  // The request limits the description states (obtain-request.ts), read at each request as the
  // other services read theirs (the description may change while the node runs).
  const limits = async () => requestLimitsOf((await settings.of('obtain')).service_data);
  const obtain = (ctx: NodeContext, request: ObtainRequest): ReturnType<ObtainService['obtain']> => (request.ids.length === 1 ? service.obtain(request) : slots.run(ctx, () => service.obtain(request)));
  router.get('/obtain', restricted, async (ctx) => {
    send(ctx, await obtain(ctx, fromQuery(ctx.query, await limits())));
  });
  router.post('/obtain', restricted, async (ctx) => {
    const stated = await limits();
    let body: unknown;
    try {
      body = await readJsonBody(ctx, stated.messageBytes);
    } catch (error) {
      if (isUnsupportedType(error)) throw error;
      const refusal = bodyRefusal(error, stated.messageBytes, 'service_data.msg_size_limit');
      throw specRefusal(refusal.code, refusal.message);
    }
    send(ctx, await obtain(ctx, fromBody(body, stated)));
  });
  return router;
}
