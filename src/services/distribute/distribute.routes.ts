/** HTTP of distribution (spec "Distribution"): POST /distribute, GET /destination; the inbound endpoint is inbound-proxy.http.ts. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import type { Distribution } from './wiring.js';
import { credentialSchemes, type ServiceSettings } from '../service-settings.js';
import type { CredentialSchemes } from '../../domain/service-descriptions.js';

/**
 * The credentials /distribute takes: the schemes its description's service_authz lists (as for
 * every service). Never none: spec "Authentication", 7 restricts it to network operations, so a
 * description saying `none` (the original node's default) still asks for credentials, of any scheme.
 */
function distributeCredentials(settings: ServiceSettings): () => Promise<CredentialSchemes | true> {
  return async () => credentialSchemes(await settings.of('distribute')) || true;
}

export function distributeRoutes(distribution: Distribution, settings: ServiceSettings, gate: Gate): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/distribute', gate.can('distribute', { when: distributeCredentials(settings) }), async (ctx) => {
    const answer = await distribution.service.distribute();
    ctx.status = answer.OK ? 200 : 500;
    ctx.body = answer;
  });
  router.get('/destination', async (ctx) => {
    ctx.body = await distribution.destination.info();
  });
  return router;
}
