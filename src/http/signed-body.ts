/**
 * The body an OAuth 1.0 signature covers (the OAuth Request Body Hash extension, oauth_body_hash:
 * src/services/auth/oauth1.ts): once a body is read, one the signature does not cover is a 401,
 * before anything is done with it. Requests without such a signature are not checked.
 */
import type { NodeContext } from './context.js';
import { AppError } from '../errors/app-error.js';

/** `body`: the bytes read, or how to get them (made only when a signature covers the body). */
export function checkSignedBody(ctx: NodeContext, body: Uint8Array | (() => Uint8Array)): void {
  const check = ctx.state.bodyCheck;
  if (check && !check(typeof body === 'function' ? body() : body)) throw new AppError(401, 'unauthorized', 'OAuth: the request body is not the one its signature covers (oauth_body_hash)');
}
