/** Reads an HTML form post (application/x-www-form-urlencoded, the default form encoding) with a small limit. */
import type { NodeContext } from '../../http/context.js';
import { BodyTooLarge, readRawBody } from '../../http/raw-body.js';
import { Refusal } from './web-accounts.js';

const LIMIT_BYTES = 8 * 1024;

export async function readForm(ctx: NodeContext): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new Refusal(415, 'Forms are sent as application/x-www-form-urlencoded.');
  let body: Buffer;
  try {
    body = await readRawBody(ctx, LIMIT_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new Refusal(413, 'The form is too large.');
    throw error;
  }
  return new URLSearchParams(body.toString('utf8'));
}
