/** Reads an HTML form post (application/x-www-form-urlencoded, the default form encoding) with a small limit. */
import type { NodeContext } from '../../http/context.js';
import { Refusal } from './web-accounts.js';

const LIMIT_BYTES = 8 * 1024;

export async function readForm(ctx: NodeContext): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new Refusal(415, 'Forms are sent as application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT_BYTES) throw new Refusal(413, 'The form is too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
