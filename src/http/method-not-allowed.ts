/**
 * The answer of an endpoint with an error form of its own (OAI-PMH, SWORD) to a method it does not
 * take: a route for every method, registered after the endpoint's own, so reached only when none
 * of them matched. `Allow` names the methods it takes, on the 405 (RFC 9110 §15.5.6) and on
 * OPTIONS, answered 204 (§9.3.7); the 405's body is the protocol's own (`refuse`), never the
 * JSON services' body (error-exit.ts). One rule, so that what an HTTP client is told about methods
 * does not depend on the protocol it asked in; only the body form does.
 */
import type { NodeContext } from './context.js';

/**
 * `allow`: the methods `path` takes, as the Allow header lists them; `why`: the protocol's rule, said
 * after the method refused. `refuse` answers the 405 with the message in the protocol's form.
 */
export function methodNotAllowed(path: string, allow: string, why: string, refuse: (ctx: NodeContext, message: string) => void): (ctx: NodeContext) => void {
  return (ctx) => {
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') { ctx.status = 204; return; }
    refuse(ctx, `${ctx.method} is not allowed on ${path}: ${why}`);
  };
}
