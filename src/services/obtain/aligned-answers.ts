/**
 * Basic Obtain answers one result per request ID, in the request's order, a repeated ID at each
 * of its places (spec "Basic Obtain", rule 2: "Results align 1:1 with the request IDs"), so a
 * client can pair its list with `documents`. The IDs are read `chunk` at a time and each batch of
 * answers is given as soon as it is read (the answer is streamed), and the store is asked for
 * each distinct ID once: an answer whose ID comes again later is held until its last place.
 * At most HELD_DOCUMENTS documents are held at a time, so a request repeating many large answers
 * far apart keeps bounded memory, as the streamed answer does; past that, a repeat is read again
 * (the cap on request IDs bounds those reads as it bounds distinct ones).
 */
export interface ObtainEntry { doc_ID: string; document: Record<string, unknown>[] | null }

/** Reads distinct IDs: an entry for each (`document: null` when none). */
export type EntryReader = (ids: string[]) => Promise<Map<string, ObtainEntry>>;

const HELD_DOCUMENTS = 500;

const weight = (entry: ObtainEntry): number => Math.max(1, entry.document?.length ?? 0);

export async function* alignedAnswers(ids: readonly string[], chunk: number, read: EntryReader, budget = HELD_DOCUMENTS): AsyncGenerator<ObtainEntry[]> {
  const lastPlace = new Map<string, number>();
  ids.forEach((id, place) => lastPlace.set(id, place));
  const held = new Map<string, ObtainEntry>();
  let heldWeight = 0;
  for (let start = 0; start < ids.length; start += chunk) {
    const slice = ids.slice(start, start + chunk);
    const toRead = [...new Set(slice.filter((id) => !held.has(id)))];
    const found = toRead.length > 0 ? await read(toRead) : new Map<string, ObtainEntry>();
    yield slice.map((id, offset) => {
      const entry = held.get(id) ?? (found.get(id) as ObtainEntry);
      const askedAgain = (lastPlace.get(id) as number) > start + offset;
      if (!askedAgain && held.delete(id)) heldWeight -= weight(entry);
      else if (askedAgain && !held.has(id) && heldWeight + weight(entry) <= budget) {
        held.set(id, entry);
        heldWeight += weight(entry);
      }
      return entry;
    });
  }
}
