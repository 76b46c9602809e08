/** HTTP for the node-level endpoints; the use cases are in node-info.service.ts. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { NodeInfoService } from './node-info.service.js';

export function nodeInfoRoutes(service: NodeInfoService): Router<NodeState> {
  const router = new Router<NodeState>();
  router.get('/status', async (ctx) => {
    ctx.body = await service.status();
  });
  router.get('/services', async (ctx) => {
    ctx.body = await service.services();
  });
  router.get('/description', async (ctx) => {
    ctx.body = await service.description();
  });
  router.get('/pubkey', async (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = await service.publicKey();
  });
  return router;
}
