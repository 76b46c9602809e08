/** Builds the Koa app without listening (tests listen on port 0). Error exit first, then routers. */
import Koa from 'koa';
import type { Deps } from './deps.js';
import type { NodeState } from './http/context.js';
import { requestContext } from './http/request-context.js';
import { jsonErrorExit } from './http/error-exit.js';
import { nodeInfoRoutes } from './services/node-info/node-info.routes.js';

export function createApp(deps: Deps): Koa<NodeState> {
  const app = new Koa<NodeState>();
  app.proxy = false;
  app.silent = true; // errors are logged by the error exit, with the request id
  app.use(requestContext(deps.logger));
  app.use(jsonErrorExit());
  for (const router of [nodeInfoRoutes(deps.nodeInfo)]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
