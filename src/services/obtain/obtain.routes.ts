/** GET and POST /obtain (spec "Basic Obtain"): parse, call the use case, send an object or a stream. */
import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { NodeState, NodeContext } from '../../http/context.js';
import { bodyRefusal, isUnsupportedType, readJsonBody } from '../../http/json-body.js';
import { specRefusal } from '../../errors/app-error.js';
import { fromBody, fromQuery } from './obtain-request.js';
import type { ObtainResponse, ObtainService } from './obtain.service.js';

const OBTAIN_BODY_LIMIT = 1024 * 1024;

function send(ctx: NodeContext, response: ObtainResponse): void {
  ctx.type = 'application/json; charset=utf-8';
  if (response.kind === 'object') {
    ctx.body = response.body;
    return;
  }
  // Readable.from pulls the generator as the client reads: backpressure, constant memory, and
  // the generator is closed (no more store reads) when the client goes away.
  ctx.body = Readable.from(response.chunks, { objectMode: false });
}

export function obtainRoutes(service: ObtainService): Router<NodeState> {
  const router = new Router<NodeState>();
  router.get('/obtain', async (ctx) => {
    send(ctx, await service.obtain(fromQuery(ctx.query)));
  });
  router.post('/obtain', async (ctx) => {
    let body: unknown;
    try {
      body = await readJsonBody(ctx, OBTAIN_BODY_LIMIT);
    } catch (error) {
      if (isUnsupportedType(error)) throw error;
      const refusal = bodyRefusal(error, OBTAIN_BODY_LIMIT);
      throw specRefusal(refusal.code, refusal.message);
    }
    send(ctx, await service.obtain(fromBody(body)));
  });
  return router;
}
