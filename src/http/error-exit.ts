/**
 * The one error exit of the JSON services: every error becomes `{"OK": false, "error": ...}`
 * with the AppError's status. Unexpected errors are logged with their stack and answered with a
 * generic 500: never a stack trace to the client. Protocol services with their own error form
 * (OAI-PMH, SWORD) render their errors in their routes and never reach this.
 */
import type { Middleware } from 'koa';
import { AppError, retryAfterOf } from '../errors/app-error.js';
import type { NodeState } from './context.js';
import { isRefusal, logAnswered } from './log-answered.js';

function fromBodyParser(error: unknown): AppError | undefined {
  const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
  const type = (error as { type?: string }).type;
  if (status === 413 || type === 'entity.too.large') return new AppError(413, 'payload_too_large', 'request body too large');
  if (status === 415) return new AppError(415, 'unsupported_media_type', 'unsupported content type');
  if (status === 400 || type === 'entity.parse.failed') return new AppError(400, 'invalid_request', 'request body is not valid JSON');
  return undefined;
}

export function jsonErrorExit(): Middleware<NodeState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError(404, 'not_found', `no such endpoint: ${ctx.method} ${ctx.path}`);
      }
      if (ctx.status === 405 && !ctx.body) {
        throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (raw) {
      const error = raw instanceof AppError ? raw : fromBodyParser(raw) ?? raw;
      if (error instanceof AppError) {
        // A service switched off in its description is the operator's choice, not a fault: no error
        // log (with a stack) for each request, and no Retry-After, since waiting will not change it.
        const switchedOff = error.code === 'service_inactive';
        // Other 4xx answers (a 401, a 404) are not logged; how the rest are: log-answered.ts.
        if (error.status >= 500 || isRefusal(error)) logAnswered(ctx.state.log, error, error.message);
        ctx.status = error.status;
        ctx.body = { OK: false, error: error.expose ? error.message : 'internal error' };
        if (error.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="Learning Registry node", charset="UTF-8"');
        // A body over the limit is not read to its end: the connection closes after the answer
        // (Node would otherwise drain the rest of the body to keep the connection alive).
        if (error.code === 'payload_too_large') ctx.set('Connection', 'close');
        // A 503 is temporary, and a 429 asks to slow down: say when to come back (RFC 9110 §15.6.4, RFC 6585 §4).
        if ((error.status === 503 && !switchedOff) || error.status === 429) ctx.set('Retry-After', String(retryAfterOf(error)));
      } else {
        // Koa-style errors (status + expose), e.g. from router.allowedMethods(): keep their status.
        const status = (error as { status?: number }).status;
        if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
          ctx.status = status;
          ctx.body = { OK: false, error: (error as Error).message };
          ctx.type = 'application/json; charset=utf-8';
          return;
        }
        logAnswered(ctx.state.log, error, 'unhandled error');
        ctx.status = 500;
        ctx.body = { OK: false, error: 'internal error' };
      }
      ctx.type = 'application/json; charset=utf-8';
    }
  };
}
