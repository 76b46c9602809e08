/** HTTP of distribution (spec "Distribution"): POST /distribute, GET /destination; the inbound endpoint is inbound-proxy.http.ts. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import type { Distribution } from './wiring.js';

export function distributeRoutes(distribution: Distribution, gate: Gate): Router<NodeState> {
  const router = new Router<NodeState>();
  // Spec "Authentication", 7: restricted to network operations.
  router.post('/distribute', gate.can('distribute'), async (ctx) => {
    const answer = await distribution.service.distribute();
    ctx.status = answer.OK ? 200 : 500;
    ctx.body = answer;
  });
  router.get('/destination', async (ctx) => {
    ctx.body = await distribution.destination.info();
  });
  return router;
}
