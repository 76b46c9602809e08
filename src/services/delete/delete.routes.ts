/** POST /delete (spec "Basic Delete (deprecated)"). */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';
import { readPublishRequest } from '../publish/publish-request.js';
import { deleteActionOf, type DeleteService } from './delete.service.js';

export function deleteRoutes(service: DeleteService, settings: ServiceSettings, gate: Gate): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/delete', gate.can('publish', { when: credentialsRequired(settings, 'delete') }), async (ctx) => {
    const { description, body, account, docLimit } = await readPublishRequest(ctx, settings, 'delete');
    ctx.body = await service.delete(body, account, deleteActionOf(description.service_data), docLimit);
  });
  return router;
}
