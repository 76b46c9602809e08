/**
 * A JSON answer whose list is streamed as it is read, in constant memory (obtain, slice and Basic
 * Harvest without flow control): `open` is the text up to and including the list's "[", then
 * the items of each batch, comma-separated, then `ending.done(sent)`.
 *
 * The status line goes out before the list is read, so a read that fails cannot become an error
 * status: the answer ends with `ending.failed(sent, reason)`, which closes the list and says so in
 * the service's JSON error form, and a client never takes a truncated document or a silently
 * short list for the whole one. Then it throws ListBrokeOff, which the route's sender
 * (http/json-stream.ts) logs and swallows: the answer itself is complete JSON.
 */
import { AppError } from '../errors/app-error.js';
export interface ListEnding {
  done(sent: number): string;
  failed(sent: number, reason: string): string;
}

export async function* streamedJsonList(open: string, batches: AsyncIterable<readonly unknown[]>, ending: ListEnding): AsyncGenerator<string> {
  yield open;
  let sent = 0;
  try {
    for await (const batch of batches) {
      let text = '';
      for (const item of batch) {
        text += (sent > 0 ? ',' : '') + JSON.stringify(item);
        sent += 1;
      }
      if (text) yield text;
    }
  } catch (error) {
    // What the client is told follows the error exit's rule: only an exposed error's own words.
    yield ending.failed(sent, error instanceof AppError && error.expose ? error.message : 'internal error');
    throw new ListBrokeOff(error);
  }
  yield ending.done(sent);
}

/** A streamed list broke off after its failure tail was sent (`reason`: why, for the log). */
export class ListBrokeOff extends Error {
  constructor(readonly reason: unknown) {
    super('a streamed list broke off after its status line was sent');
  }
}

/** The text of `head` (a JSON object) without its closing brace, so that more members can follow. */
export function openObject(head: Record<string, unknown>): string {
  return JSON.stringify(head).slice(0, -1);
}
