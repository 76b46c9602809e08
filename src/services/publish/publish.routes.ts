/** POST /publish (spec "Publish"): authentication, body, then the use case. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import { readJsonBody, describeBodyError } from '../../http/json-body.js';
import { ServiceSettings, numberSetting, requiresBasicAuth } from '../service-settings.js';
import { PublishRefused, type PublishService } from './publish.service.js';

export function publishRoutes(service: PublishService, settings: ServiceSettings, auth: Authenticator): Router<NodeState> {
  const router = new Router<NodeState>();
  router.post('/publish', async (ctx) => {
    const description = await settings.of('publish');
    const account = requiresBasicAuth(description) ? await auth.require(ctx.get('authorization'), 'publisher') : undefined;
    const limit = numberSetting(description.service_data, 'msg_size_limit');
    let body: unknown;
    try {
      body = await readJsonBody(ctx, limit);
    } catch (error) {
      throw new PublishRefused(describeBodyError(error, limit));
    }
    ctx.body = await service.publish(body, account, numberSetting(description.service_data, 'doc_limit'));
  });
  return router;
}
