/** POST /publish (spec "Publish"): authentication, body, then the use case. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import type { ServiceSettings } from '../service-settings.js';
import type { PublishService } from './publish.service.js';
import { readPublishRequest } from './publish-request.js';

export function publishRoutes(service: PublishService, settings: ServiceSettings, auth: Authenticator): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/publish', async (ctx) => {
    // The node documents are read while the request is authenticated and its body read.
    const nodeDocuments = service.readNodeDocuments();
    nodeDocuments.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    const { body, account, docLimit } = await readPublishRequest(ctx, settings, auth, 'publish');
    ctx.body = await service.publish(body, account, docLimit, { nodeDocuments });
  });
  return router;
}
