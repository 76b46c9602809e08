/**
 * Serialises a JSON response body once. Koa keeps an object body as an object until it responds,
 * and each reader of its length serialises it again: koa-compress reads `ctx.response.length` for
 * its threshold (koa's getter runs `JSON.stringify` to count the bytes), then koa or koa-compress
 * serialises it to send. Every obtain, slice, harvest and publish answer, an error's too, was
 * therefore serialised twice; a JSON harvest page of 100 records is a few hundred KB. Mounted
 * inside the compression middleware (src/app.ts), this turns such a body into its JSON text once,
 * and every later reader takes the text (koa keeps the JSON content type it already set).
 */
import type { Middleware } from 'koa';
import type { NodeState } from './context.js';

/** What koa would serialise as JSON: any object that is not a Buffer, stream or web body. */
function isJsonBody(body: unknown): body is object {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return false;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return false; // a Node stream
  return !(body instanceof ReadableStream || body instanceof Blob || body instanceof Response);
}

export function serialiseJsonOnce(): Middleware<NodeState> {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (!isJsonBody(body)) return;
    try {
      ctx.body = JSON.stringify(body);
    } catch (error) {
      // Outside the error exit (which is inside this): an answer JSON cannot hold (a string past
      // V8's limit) still ends in the JSON error form, not in koa's text page.
      ctx.state.log?.error({ err: error }, 'the answer could not be serialised');
      ctx.status = 500;
      ctx.body = JSON.stringify({ OK: false, error: 'internal error: the answer is too large to send' });
      ctx.type = 'application/json; charset=utf-8';
    }
  };
}
