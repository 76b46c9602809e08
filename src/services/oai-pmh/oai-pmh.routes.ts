/**
 * GET /OAI-PMH?verb=... and POST /OAI-PMH (application/x-www-form-urlencoded), OAI-PMH 2.0
 * §3.1.1; and GET /schemas/<name>.xsd, the extension schemas named by xsi:schemaLocation.
 * Protocol errors are <error code="..."> with HTTP 200 (§3.6), rendered here and never by the
 * JSON error exit; a store outage is a 503 with a plain-text body and Retry-After (§3.1.3 allows
 * 503), anything unexpected a plain 500. Arguments are read as ordered pairs so a repeated one
 * is seen (a parsed query object would merge or nest them).
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Next } from 'koa';
import type { NodeContext, NodeState } from '../../http/context.js';
import { BodyTooLarge, readRawBody } from '../../http/raw-body.js';
import { sendHarvestAnswer } from '../harvest/harvest.routes.js';
import type { Gate } from '../../http/gate.js';
import { logAnswered } from '../../http/log-answered.js';
import { methodNotAllowed } from '../../http/method-not-allowed.js';
import { credentialsRequired, type ServiceSettings } from '../service-settings.js';
import { AppError, retryAfterOf } from '../../errors/app-error.js';
import { renderOaiResponse } from '../../protocol/oai-pmh/render.js';
import type { OaiPmhService } from './oai-pmh.service.js';
import { BadArgument } from './oai-errors.js';
import type { RequestSlots } from '../../http/request-slots.js';

const SCHEMA_NAME = /^[A-Za-z0-9_.-]+\.xsd$/;
const FORM_LIMIT = 64 * 1024;
const OAI_METHODS = 'GET, HEAD, POST';

function pairsOf(encoded: string): [string, string][] {
  return [...new URLSearchParams(encoded)];
}

/** Verbs that answer without a list, so never wait for a heavy request's slot (http/request-slots.ts). */
const SINGLE_VERBS = new Set(['Identify', 'ListMetadataFormats', 'ListSets', 'GetRecord']);

/** Lists take a slot; a GET that names a single-answer verb does not (a POST's verb is in its body, read in the slot). */
const isList = (ctx: NodeContext): boolean => ctx.method !== 'GET' || !SINGLE_VERBS.has(String(ctx.query.verb));

async function answer(ctx: NodeContext, service: OaiPmhService, slots: RequestSlots, pairs: () => Promise<[string, string][]>): Promise<void> {
  try {
    const answered = await (isList(ctx) ? slots.run(ctx, () => service.handle(pairs)) : service.handle(pairs));
    ctx.status = 200;
    if (answered.kind === 'json') {
      // The JSON metadata prefix: Basic Harvest's JSON (src/services/oai-pmh/json-prefix.ts).
      sendHarvestAnswer(ctx, answered.answer);
      return;
    }
    ctx.type = 'text/xml; charset=utf-8';
    ctx.body = renderOaiResponse(answered.response);
  } catch (error) {
    sendOaiFailure(ctx, error);
  }
}

/**
 * The OAI-PMH exit for what is not an OAI-PMH error: 503 + Retry-After while the store is
 * unavailable (OAI-PMH 2.0 §3.1.3 gives no body for it: plain text), anything else a plain 500.
 */
export function sendOaiFailure(ctx: NodeContext, error: unknown): void {
  const unavailable = error instanceof AppError && error.status === 503;
  // Switched off in its description: the operator's choice, not worth a retry.
  const switchedOff = error instanceof AppError && error.code === 'service_inactive';
  logAnswered(ctx.state.log, error, unavailable ? 'OAI-PMH: the store is unavailable' : 'OAI-PMH: unexpected error');
  ctx.status = unavailable ? 503 : 500;
  if (unavailable && !switchedOff) ctx.set('Retry-After', String(retryAfterOf(error)));
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = unavailable ? `The OAI-PMH service is temporarily unavailable (${error.message}); retry later.\n` : 'Internal error.\n';
}

/** Whether credentials are needed could not be decided (the service description unreadable). */
class AccessUndecided extends Error {
  constructor(readonly reason: unknown) {
    super('the OAI-PMH access rule could not be read');
  }
}

/** `schemaDir`: the XML schemas served at /schemas/ (deps.ts). */
export function oaiPmhRoutes(service: OaiPmhService, settings: ServiceSettings, gate: Gate, schemaDir: string, slots: RequestSlots): Router<NodeState> {
  const router = new Router<NodeState>();
  // An OAI-PMH description that asks for basicauth restricts harvesting to the node's accounts
  // (OAI-PMH 2.0 §3.1.2.2 leaves access control to HTTP). An inactive service is not asked about
  // credentials: the route answers its own plain-text 503 (sendOaiFailure).
  // A description that cannot be read now (the store unavailable) does not count as "no
  // credentials needed", which served a restricted service to anyone whenever this read failed
  // and the handler's own succeeded: the request gets OAI-PMH's 503 instead.
  const required = credentialsRequired(settings, 'oai_pmh');
  const guarded = gate.can('read', {
    when: () => required().catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'service_inactive') return false;
      throw new AccessUndecided(error);
    }),
  });
  const restricted = async (ctx: NodeContext, next: Next): Promise<void> => {
    try {
      await guarded(ctx, next);
    } catch (error) {
      if (!(error instanceof AccessUndecided)) throw error;
      sendOaiFailure(ctx, error.reason);
    }
  };
  router.get('/OAI-PMH', restricted, (ctx) => answer(ctx, service, slots, async () => pairsOf(ctx.querystring)));
  // POST carries the arguments as a form (OAI-PMH 2.0 §3.1.1.2): a body of any other type has
  // none, and is answered as a request without a verb (badVerb), as an unreadable one is.
  router.post('/OAI-PMH', restricted, (ctx) => answer(ctx, service, slots, async () => {
    if (!ctx.is('application/x-www-form-urlencoded')) return [];
    try {
      return pairsOf((await readRawBody(ctx, FORM_LIMIT)).toString('utf8'));
    } catch (error) {
      // Too large: badArgument, naming the limit (the connection is closed, so the rest is not read).
      if (error instanceof BodyTooLarge) {
        ctx.set('Connection', 'close');
        throw new BadArgument(`the form body is larger than ${FORM_LIMIT} bytes`);
      }
      return [];
    }
  }));
  // Any other method (http/method-not-allowed.ts): OAI-PMH requests are GET or POST (§3.1.1) and
  // the protocol has no error code for a method, so a plain-text 405, as for a store outage.
  router.all('/OAI-PMH', methodNotAllowed('/OAI-PMH', OAI_METHODS, 'OAI-PMH requests are GET or POST', (ctx, message) => {
    ctx.status = 405;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `${message}.\n`;
  }));
  router.get('/schemas/:name', async (ctx) => {
    const name = ctx.params.name ?? '';
    const file = path.join(schemaDir, name);
    if (!SCHEMA_NAME.test(name) || !fs.existsSync(file)) return;
    ctx.type = 'application/xml; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await fs.promises.readFile(file);
  });
  return router;
}
