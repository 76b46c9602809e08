/** POST /delete (spec "Basic Delete (deprecated)"). */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import { readJsonBody, describeBodyError } from '../../http/json-body.js';
import { ServiceSettings, numberSetting, requiresBasicAuth } from '../service-settings.js';
import { PublishRefused } from '../publish/publish.service.js';
import type { DeleteAction, DeleteService } from './delete.service.js';

export function deleteRoutes(service: DeleteService, settings: ServiceSettings, auth: Authenticator): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/delete', async (ctx) => {
    const description = await settings.of('delete');
    const account = requiresBasicAuth(description) ? await auth.require(ctx.get('authorization'), 'publisher') : undefined;
    const limit = numberSetting(description.service_data, 'msg_size_limit');
    let body: unknown;
    try {
      body = await readJsonBody(ctx, limit);
    } catch (error) {
      throw new PublishRefused(describeBodyError(error, limit));
    }
    const action = (description.service_data?.delete_action ?? 'mark') as DeleteAction;
    ctx.body = await service.delete(body, account, action, numberSetting(description.service_data, 'doc_limit'));
  });
  return router;
}
