/**
 * The sender of every streamed JSON answer (obtain, slice and Basic Harvest lists without flow
 * control; protocol/json-list-stream.ts). Readable.from pulls the chunks as the client reads:
 * backpressure, constant memory, and the generator is closed (no more store reads) when the
 * client goes away. A list that broke off has already ended its answer with the JSON error form;
 * here it is logged, the one place that sees it, and the response ends normally.
 */
import { Readable } from 'node:stream';
import type { NodeContext } from './context.js';
import { ListBrokeOff } from '../protocol/json-list-stream.js';

export function sendJsonStream(ctx: NodeContext, chunks: AsyncGenerator<string>): void {
  const log = ctx.state.log;
  async function* logged(): AsyncGenerator<string> {
    try {
      yield* chunks;
    } catch (error) {
      if (!(error instanceof ListBrokeOff)) throw error;
      log?.error({ err: error.reason }, 'a streamed list broke off after its status line: its answer ends with the JSON error form');
    }
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = Readable.from(logged(), { objectMode: false });
}
