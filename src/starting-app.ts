/**
 * What the node answers between binding its port and the end of bootstrap (runtime.ts): every
 * request is "the store is not ready", 503 with Retry-After, in the error form of the protocol
 * asked for (JSON, OAI-PMH, sword:error, HTML page), through the running node's own exits.
 */
import Koa from 'koa';
import type { Logger } from 'pino';
import type { NodeState } from './http/context.js';
import { requestContext } from './http/request-context.js';
import { jsonErrorExit } from './http/error-exit.js';
import { sendHtmlError } from './http/html-error.js';
import { nodeStarting } from './errors/app-error.js';
import { errorPage } from './protocol/html/error-page.js';
import { sendOaiFailure } from './services/oai-pmh/oai-pmh.routes.js';
import { sendSwordError } from './services/sword/sword.routes.js';
import { swordGenerator } from './services/sword/sword.service.js';

/** Bootstrap is usually quick: ask for a retry soon. */
const STARTING_RETRY_AFTER_SECONDS = 1;

export function createStartingApp(logger: Logger, nodeName: string, publicUrl: string): Koa<NodeState> {
  const app = new Koa<NodeState>();
  app.silent = true;
  app.use(requestContext(logger));
  app.use(jsonErrorExit());
  app.use((ctx) => {
    const error = nodeStarting(STARTING_RETRY_AFTER_SECONDS);
    if (ctx.path === '/OAI-PMH') return sendOaiFailure(ctx, error);
    if (ctx.path === '/swordservice' || ctx.path === '/swordpub') return sendSwordError(ctx, error, swordGenerator(publicUrl));
    if (ctx.path === '/dashboard' || ctx.path === '/auth' || ctx.path.startsWith('/auth/')) return sendHtmlError(ctx, error, (title, text) => errorPage(nodeName, title, text));
    throw error;
  });
  return app;
}
