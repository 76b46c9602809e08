/** POST /delete (spec "Basic Delete (deprecated)"). */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';
import { readPublishRequest } from '../publish/publish-request.http.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import { deletedDataPolicyOf } from '../../domain/node-documents.js';
import { notBootstrapped } from '../../errors/app-error.js';
import { deleteActionOf, type DeleteService } from './delete.service.js';

export function deleteRoutes(service: DeleteService, settings: ServiceSettings, nodes: NodeRepository, gate: Gate): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/delete', gate.can('publish', { when: credentialsRequired(settings, 'delete') }), async (ctx) => {
    const { description, body, account, docLimit } = await readPublishRequest(ctx, settings, 'delete');
    // Read at each request, as the description is: a policy changed in CouchDB applies at once.
    const node = await nodes.nodeDescription();
    if (!node) throw notBootstrapped('the node description');
    ctx.body = await service.delete(body, account, { action: deleteActionOf(description.service_data), deletedDataPolicy: deletedDataPolicyOf(node) }, docLimit);
  });
  return router;
}
