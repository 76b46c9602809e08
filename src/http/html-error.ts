/**
 * The error exit of the node's HTML pages (/auth, /dashboard): the AppError's status and message
 * on a page, Retry-After on a 503 like every other protocol's exit; anything unexpected is logged
 * and shown as a generic 500 page, never a stack trace.
 */
import { AppError, retryAfterOf } from '../errors/app-error.js';
import { PAGE_CSP } from '../protocol/html/layout.js';
import type { NodeContext } from './context.js';
import { logAnswered } from './log-answered.js';

/** `render(title, text)` builds the page in the look of the pages it stands for. */
export function sendHtmlError(ctx: NodeContext, error: unknown, render: (title: string, text: string) => string): void {
  const shown = error instanceof AppError && error.expose;
  if (!shown || error.status >= 500) logAnswered(ctx.state.log, error, `${ctx.path} failed`);
  const status = shown ? error.status : 500;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_CSP);
  if (status === 503) ctx.set('Retry-After', String(retryAfterOf(error)));
  ctx.body = render('Request failed', shown ? error.message : 'Something went wrong on this node. Try again later.');
}
