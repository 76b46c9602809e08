/**
 * GET /swordservice and POST /swordpub (spec "SWORD publish"): HTTP only. Every error is a
 * `sword:error` document (SWORD 1.3 profile section 2.3), never the JSON error exit.
 */
import Router from '@koa/router';
import type { NodeContext, NodeState } from '../../http/context.js';
import { MEDIA } from '../../protocol/sword/namespaces.js';
import { serviceDocument } from '../../protocol/sword/service-document.js';
import { depositReceipt } from '../../protocol/sword/deposit-receipt.js';
import { errorDocument, type ErrorData } from '../../protocol/sword/error-document.js';
import { decodedDeposit, parseDepositHeaders, parseDocument, readDepositBody, verifyChecksum } from './deposit-request.js';
import { describeSwordError } from './sword-error.js';
import { AppError, retryAfterOf } from '../../errors/app-error.js';
import type { SwordService } from './sword.service.js';
import type { Gate } from '../../http/gate.js';
import { logAnswered } from '../../http/log-answered.js';
import { methodNotAllowed } from '../../http/method-not-allowed.js';
import { checkSignedBody } from '../../http/signed-body.js';

const CHALLENGE = 'Basic realm="Learning Registry node", charset="UTF-8"';

async function swordExit(ctx: NodeContext, service: SwordService, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    sendSwordError(ctx, error, service.generator);
  }
}

/** The SWORD error exit: any error as a `sword:error` document with its status and headers. */
export function sendSwordError(ctx: NodeContext, error: unknown, generator: ErrorData['generator']): void {
  const described = describeSwordError(error);
  if (!described.expose) logAnswered(ctx.state.log, error, 'SWORD request failed');
  ctx.status = described.status;
  ctx.type = MEDIA.error;
  if (described.status === 401) ctx.set('WWW-Authenticate', CHALLENGE);
  if (described.status === 503) ctx.set('Retry-After', String(retryAfterOf(error)));
  // A refused upload is not read to its end: close the connection after answering.
  if (described.status === 413) ctx.set('Connection', 'close');
  const verbose = ctx.get('x-verbose').trim().toLowerCase() === 'true';
  const userAgent = ctx.get('user-agent').slice(0, 200);
  ctx.body = errorDocument({
    uri: described.uri,
    summary: described.summary,
    updated: new Date().toISOString(),
    generator,
    ...(userAgent ? { userAgent } : {}),
    ...(verbose ? { verboseDescription: `Refused with HTTP ${described.status}: ${described.summary}. Nothing was stored.` } : {}),
  });
}

export function swordRoutes(service: SwordService, gate: Gate): Router<NodeState> {
  // The gate inside the SWORD exit: a 401 is a sword:error TargetOwnerUnknown, not the JSON exit's answer.
  const principal = async (ctx: NodeContext) => {
    const schemes = await service.active();
    ctx.state.principal = await gate.identified(ctx.get('authorization'), undefined, ctx.ip, gate.signedRequest(ctx), schemes);
    return ctx.state.principal;
  };
  const router = new Router<NodeState>();

  router.get('/swordservice', (ctx) => swordExit(ctx, service, async () => {
    const data = await service.serviceDocument(await principal(ctx), ctx.get('x-on-behalf-of'));
    ctx.type = MEDIA.service;
    ctx.body = serviceDocument(data);
  }));

  router.post('/swordpub', (ctx) => swordExit(ctx, service, async () => {
    // Order: credentials and mediation, headers, size, checksum, content coding, JSON, then the publish checks.
    const account = await principal(ctx);
    const depositor = await service.depositor(account, ctx.get('x-on-behalf-of'));
    const headers = parseDepositHeaders((name) => ctx.get(name));
    const limit = await service.sizeLimit();
    const sent = await readDepositBody(ctx.req, limit);
    checkSignedBody(ctx, sent);
    verifyChecksum(sent, headers.md5);
    const body = await decodedDeposit(sent, ctx.get('content-encoding'), limit);
    const outcome = await service.deposit(parseDocument(body), depositor, headers, body.length);
    // A real deposit created a resource (201 + Location, RFC 5023 section 9.2); a no-op did not.
    ctx.status = outcome.location ? 201 : 200;
    if (outcome.location) ctx.set('Location', outcome.location);
    ctx.type = MEDIA.entry;
    ctx.body = depositReceipt(outcome.receipt);
  }));

  // Any other method (http/method-not-allowed.ts): a sword:error like every SWORD answer.
  for (const [path, allowed, why] of [['/swordservice', 'GET, HEAD', 'the service document is read with GET'], ['/swordpub', 'POST', 'a deposit is a POST']] as const) {
    router.all(path, methodNotAllowed(path, allowed, why, (ctx, message) => sendSwordError(ctx, new AppError(405, 'method_not_allowed', message), service.generator)));
  }

  return router;
}
