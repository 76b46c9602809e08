/**
 * A request body read whole, up to a limit, for the bodies that are no JSON (which
 * @koa/bodyparser reads: json-body.ts): forms (/auth, OAI-PMH POST) and the replication protocol's
 * bodies (/incoming). A declared length over the limit is refused before a byte is read, a body
 * that grows past it as soon as it does (raw-body); the refusal is one error, which each caller
 * answers in its own protocol's form.
 */
import getRawBody from 'raw-body';
import type { NodeContext } from './context.js';

export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLarge';
  }
}

export async function readRawBody(ctx: NodeContext, limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: limitBytes, length: ctx.request.length });
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw new BodyTooLarge(limitBytes);
    throw error;
  }
}
