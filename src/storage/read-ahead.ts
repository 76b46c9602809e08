/**
 * Read-ahead of keyset pages (issue 15: harvests at the store's speed): JSON and OAI-PMH harvests
 * and Basic Obtain's ALL lists. A harvester following
 * resumption tokens asks for page N+1 only once it has received page N, so without read-ahead the
 * store and the node take turns: the store reads a page while the node waits, then the node
 * renders it while the store waits (a profile of a 5,000-record ListRecords: store busy 57% and
 * node 35% of the harvest, against the store 85% busy answering the same reads alone). When a
 * page is read for a harvester that follows a list, the node asks the store for the next page at
 * once, so the store reads it while the node renders and sends this one.
 *
 * A page read ahead is as of an earlier moment than the request that takes it. It is read with
 * the sequence its index had reached (`update_seq`), and the request places the changes since
 * then in it exactly as a range read during writes does (current-reads.ts), so the answer is as
 * of the request: a document acknowledged before the request is always in it.
 *
 * Bounded per process: a few pages at a time (a harvester beyond them reads as before: a page
 * read ahead is never pushed out, since a read nobody takes is the store's time wasted), each
 * taken within seconds or dropped. Nothing here is needed for correctness: a second node process
 * simply does not have the page and reads it (docs/scaling.md: behind a balancer without affinity,
 * READ_AHEAD=off saves the store the pages read ahead by the process a request did not reach).
 */
/** What decides the rows of a range read (a subset of view-reader.ts's ViewParams, which imports this module). */
export interface RangeRead { startkey?: unknown; endkey?: unknown; limit?: number; descending?: boolean; inclusive_end?: boolean; include_docs?: boolean }

/** A view read's answer, as far as read-ahead needs it. */
export interface PageRead { rows: unknown[] }

/**
 * What became of a page read ahead: served to its request (`taken`), or taken but read again
 * because the changes since could not be placed in it (`read_again`), dropped unasked (`expired`),
 * or its read failed; `started` counts the reads, `full` the pages not read (the bound).
 */
export type ReadAheadOutcome = 'started' | 'taken' | 'read_again' | 'expired' | 'failed' | 'full';

export interface ReadAheadOptions {
  /** Pages read ahead held at once (each up to a page of documents in memory). */
  maxPages: number;
  /** How long a page read ahead waits for its request. */
  maxAgeMs: number;
}

/** Eight pages of 100 documents of a few KB each: a few MB of memory at most. */
export const DEFAULT_READ_AHEAD: ReadAheadOptions = { maxPages: 8, maxAgeMs: 10000 };

interface Entry { limit: number; at: number; result: Promise<PageRead | undefined> }

/** Every parameter that decides which rows a read answers, except `limit` (a page read ahead serves any shorter read from the same key). */
function keyOf(db: string, ddoc: string, view: string, params: RangeRead): string {
  return JSON.stringify([db, ddoc, view, params.startkey, params.endkey, params.inclusive_end ?? true, params.descending ?? false, params.include_docs ?? false]);
}

export class ReadAhead {
  private readonly pages = new Map<string, Entry>();

  constructor(private readonly options: ReadAheadOptions, readonly onOutcome: (outcome: ReadAheadOutcome) => void = () => undefined) {}

  /** Starts `read` for a page a request may soon ask for, unless it is already read ahead or the pages held are at their bound. */
  offer(db: string, ddoc: string, view: string, params: RangeRead, read: () => Promise<PageRead>): void {
    this.dropExpired();
    const key = keyOf(db, ddoc, view, params);
    if (this.pages.has(key)) return;
    if (this.pages.size >= this.options.maxPages) { this.onOutcome('full'); return; }
    this.onOutcome('started');
    const result = read().catch(() => {
      this.onOutcome('failed');
      return undefined; // the request that would have taken it reads the page itself, and reports the store's error
    });
    this.pages.set(key, { limit: params.limit ?? Number.POSITIVE_INFINITY, at: Date.now(), result });
  }

  /**
   * The page read ahead for this read, if any (its read may still be under way), trimmed to the
   * read's `limit` (rows in view order from the same start key, so the first `limit` are what the
   * read would answer), with its `update_seq`; the promise gives undefined when the read failed.
   */
  take<P extends PageRead>(db: string, ddoc: string, view: string, params: RangeRead): Promise<P | undefined> | undefined {
    this.dropExpired();
    const key = keyOf(db, ddoc, view, params);
    const entry = this.pages.get(key);
    const limit = params.limit ?? Number.POSITIVE_INFINITY;
    if (!entry || entry.limit < limit) return undefined;
    this.pages.delete(key);
    return entry.result.then((result) => result && { ...result, rows: result.rows.slice(0, limit) } as P);
  }

  private dropExpired(): void {
    const oldest = Date.now() - this.options.maxAgeMs;
    for (const [key, entry] of this.pages) {
      if (entry.at >= oldest) continue;
      this.pages.delete(key);
      this.onOutcome('expired');
    }
  }
}
