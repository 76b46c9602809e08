/** HTTP for the node-level endpoints; the use cases are in node-info.service.ts. */
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { NodeInfoService } from './node-info.service.js';

export function nodeInfoRoutes(service: NodeInfoService): Router<NodeState> {
  const router = new Router<NodeState>();
  // The root names the node and links its endpoints, in JSON like every node-level endpoint: what
  // CouchDB's and Elasticsearch's roots answer, so `curl` of the URL the README starts with shows
  // where to go. Not a redirect to /services, which lists the services but not /status,
  // /description or /pubkey; and no HTML page of its own, which would be one more page to keep
  // accessible beside /auth and /dashboard (browsers show the JSON and its links).
  router.get('/', async (ctx) => {
    ctx.body = await service.home();
  });
  router.get('/status', async (ctx) => {
    ctx.body = await service.status();
  });
  router.get('/services', async (ctx) => {
    ctx.body = await service.services();
  });
  router.get('/description', async (ctx) => {
    ctx.body = await service.description();
  });
  router.get('/policy', async (ctx) => {
    ctx.body = await service.policy();
  });
  router.get('/pubkey', async (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = await service.publicKey();
  });
  return router;
}
