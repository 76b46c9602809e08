/** POST /delete (spec "Basic Delete (deprecated)"). */
import Router from '@koa/router';
import type { NodeContext, NodeState } from '../../http/context.js';
import type { CredentialSchemes } from '../../domain/service-descriptions.js';
import type { Gate } from '../../http/gate.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';
import { readPublishRequest } from '../publish/publish-request.http.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import { deletedDataPolicyOf } from '../../domain/node-documents.js';
import { notBootstrapped } from '../../errors/app-error.js';
import { deleteActionOf, type DeleteService } from './delete.service.js';

/**
 * Only the owner may delete (spec "Basic Delete"): where the description asks no credentials
 * (service_authz none), credentials sent are still checked, as they are what proves ownership.
 */
function ownerCredentials(required: (ctx: NodeContext) => Promise<boolean | CredentialSchemes>): (ctx: NodeContext) => Promise<boolean | CredentialSchemes> {
  return async (ctx) => {
    const needed = await required(ctx);
    return needed === false && ctx.get('authorization') !== '' ? true : needed;
  };
}

export function deleteRoutes(service: DeleteService, settings: ServiceSettings, nodes: NodeRepository, gate: Gate): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/delete', gate.can('publish', { when: ownerCredentials(credentialsRequired(settings, 'delete')), action: 'delete' }), async (ctx) => {
    const { description, body, account, docLimit } = await readPublishRequest(ctx, settings, 'delete');
    // Read at each request, as the description is: a policy changed in CouchDB applies at once.
    const node = await nodes.nodeDescription();
    if (!node) throw notBootstrapped('the node description');
    ctx.body = await service.delete(body, account, { action: deleteActionOf(description.service_data), deletedDataPolicy: deletedDataPolicyOf(node) }, docLimit);
  });
  return router;
}
