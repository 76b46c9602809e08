/**
 * A listrecords/listidentifiers answered whole (harvest `service_data.flow_control: false`, the
 * spec's Basic Harvest: "Flow control and sets are unsupported"): every selected record in one
 * response, read from the view in chunks and streamed as it is read, so memory stays constant
 * however long the list. The list is pinned to the time of the request (harvest-selection.ts), so it
 * ends while publishing goes on.
 */
import type { HarvestRepository } from '../../storage/harvest-repository.js';
import { selectPage, type SelectedPage, type Selection } from './harvest-selection.js';

/** Rows read from the view per store request while streaming. */
export const WHOLE_LIST_CHUNK = 500;

export type ItemOf = (row: SelectedPage['rows'][number]) => unknown;

/** The items of a whole list, as JSON text chunks (comma-separated items, no brackets). */
export class WholeList {
  constructor(readonly verb: string, readonly chunks: AsyncGenerator<string>, private readonly counted: () => number) {}

  /** How many items were sent so far. */
  get sent(): number {
    return this.counted();
  }
}

export function wholeList(verb: string, store: HarvestRepository, selection: Selection, first: SelectedPage, item: ItemOf, includeDocs: boolean, showDeleted: boolean): WholeList {
  let sent = 0;
  async function* chunks(): AsyncGenerator<string> {
    let page = first;
    for (;;) {
      let chunk = '';
      for (const row of page.rows) {
        chunk += (sent > 0 ? ',' : '') + JSON.stringify(item(row));
        sent += 1;
      }
      if (chunk) yield chunk;
      if (!page.more) return;
      page = await selectPage(store, selection, page.last, WHOLE_LIST_CHUNK, includeDocs, showDeleted);
    }
  }
  return new WholeList(verb, chunks(), () => sent);
}

/**
 * The Basic Harvest envelope around a whole list: `head` (responseDate, request) first, the list,
 * and `OK` last, once the outcome is known. A store failure after the status line was sent ends
 * the list there with `OK: false` and the reason, so a client never takes a truncated or silently
 * short list for the whole one (obtain's stream does the same).
 */
export async function* envelopeChunks(head: Record<string, unknown>, list: WholeList): AsyncGenerator<string> {
  yield `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(list.verb)}:[`;
  try {
    for await (const chunk of list.chunks) yield chunk;
    yield '],"OK":true}';
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'store error';
    yield `],"OK":false,"error":"incomplete","message":${JSON.stringify(`the list is incomplete after ${list.sent} records: ${reason}`)}}`;
  }
}
