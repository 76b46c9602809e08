/**
 * Reads a JSON request body with the size limit the service description states
 * (`msg_size_limit`); the limit is known only per request, so the parser is made per request.
 */
import { bodyParser } from '@koa/bodyparser';
import type { NodeContext } from './context.js';

export async function readJsonBody(ctx: NodeContext, limitBytes: number | undefined): Promise<unknown> {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: limitBytes && limitBytes > 0 ? limitBytes : '100mb', jsonStrict: true, detectJSON: () => true });
  await parse(ctx as never, async () => undefined);
  return (ctx.request as unknown as { body?: unknown }).body;
}

export function describeBodyError(error: unknown, limitBytes: number | undefined): string {
  const status = (error as { status?: number }).status;
  if (status === 413) return `request body too large: the limit is ${limitBytes} bytes (service_data.msg_size_limit)`;
  return 'request body is not valid JSON';
}
