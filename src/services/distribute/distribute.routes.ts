/** HTTP of distribution (spec "Distribution"): POST /distribute, GET /destination; the inbound endpoint is inbound-proxy.ts. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import type { Distribution } from './wiring.js';

export function distributeRoutes(distribution: Distribution, auth: Authenticator): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/distribute', async (ctx) => {
    // Spec "Authentication", 7: restricted to network operations.
    await auth.require(ctx.get('authorization'), 'network_admin');
    const answer = await distribution.service.distribute();
    ctx.status = answer.OK ? 200 : 500;
    ctx.body = answer;
  });
  router.get('/destination', async (ctx) => {
    ctx.body = await distribution.destination.info();
  });
  return router;
}
