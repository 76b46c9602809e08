/** POST /publish (spec "Publish"): authentication, body, then the use case. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import type { RequestSlots } from '../../http/request-slots.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';
import type { PublishService } from './publish.service.js';
import { readPublishRequest } from './publish-request.http.js';

/**
 * `slots`: a batch is checked and written in one of the heavy requests' slots, once its body is
 * read (http/request-slots.ts); its wait for the indexes after that (PUBLISH_MAX_INDEX_LAG) holds none.
 */
export function publishRoutes(service: PublishService, settings: ServiceSettings, gate: Gate, slots: RequestSlots): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/publish', gate.can('publish', { when: credentialsRequired(settings, 'publish') }), async (ctx) => {
    // The node documents are read while the body is read.
    const nodeDocuments = service.readNodeDocuments();
    nodeDocuments.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    const { body, account, docLimit } = await readPublishRequest(ctx, settings, 'publish');
    ctx.body = await service.publish(body, account, docLimit, { nodeDocuments, heavy: (work) => slots.run(ctx, work) });
  });
  return router;
}
