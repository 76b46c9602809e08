/**
 * A listrecords/listidentifiers answered whole (harvest `service_data.flow_control: false`, the
 * spec's Basic Harvest: "Flow control and sets are unsupported"): every selected record in one
 * response, read from the view in chunks and streamed as it is read, so memory stays constant
 * however long the list. The list is pinned to the time of the request (harvest-selection.ts), so it
 * ends while publishing goes on.
 */
import type { HarvestRepository } from '../../storage/harvest-repository.js';
import { selectPage, type SelectedPage, type Selection } from './harvest-selection.js';
import { openObject, streamedJsonList } from '../../protocol/json-list-stream.js';

/** Rows read from the view per store request while streaming. */
export const WHOLE_LIST_CHUNK = 500;

export type ItemOf = (row: SelectedPage['rows'][number]) => unknown;

/** The items of a whole list, read in batches as the answer is sent. */
export class WholeList {
  constructor(readonly verb: string, readonly batches: AsyncGenerator<unknown[]>) {}
}

export function wholeList(verb: string, store: HarvestRepository, selection: Selection, first: SelectedPage, item: ItemOf, includeDocs: boolean, showDeleted: boolean): WholeList {
  async function* batches(): AsyncGenerator<unknown[]> {
    let page = first;
    for (;;) {
      yield page.rows.map(item);
      if (!page.more) return;
      page = await selectPage(store, selection, page.last, WHOLE_LIST_CHUNK, includeDocs, showDeleted);
    }
  }
  return new WholeList(verb, batches());
}

/**
 * The Basic Harvest envelope around a whole list: `head` (responseDate, request) first, the list,
 * and `OK` last, once the outcome is known: a store failure after the status line was sent ends
 * the list there with `OK: false` and the reason (streamedJsonList).
 */
export function envelopeChunks(head: Record<string, unknown>, list: WholeList): AsyncGenerator<string> {
  return streamedJsonList(`${openObject(head)},${JSON.stringify(list.verb)}:[`, list.batches, {
    done: () => '],"OK":true}',
    failed: (sent, reason) => `],"OK":false,"error":"incomplete","message":${JSON.stringify(`the list is incomplete after ${sent} records: ${reason}`)}}`,
  });
}
