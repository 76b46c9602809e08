/**
 * The view rows of documents the index has not seen yet (current-reads.ts), computed once per
 * document revision and shared by every request of this process. A revision's content never
 * changes, so rows computed for `id@rev` stay true: nothing here can go stale, it can only be
 * missing (then fetched). Under continuous writing the concurrent range reads see much the same
 * backlog, so each of its documents is fetched and mapped once, not once per request.
 * Bounded (oldest entries dropped first); a cache only, no state another process needs.
 */
import type { StoredDoc, Database } from './documents.js';
import { abortableRequest, whileNotAborted } from './couch.js';
import type { BacklogEntry } from './backlog-feed.js';
import type { EmittedRow, ViewMaps } from './view-maps.js';


/** Twice the longest backlog read (current-reads.ts MAX_BACKLOG), so one backlog never evicts itself. */
const CAPACITY = 4000;
/** Documents fetched per `_all_docs` request: a long backlog seen for the first time is fetched in parts. */
const FETCH_CHUNK = 250;
const FETCH_TIMEOUT_MS = 30000;

export class BacklogRows {
  private readonly known = new Map<string, Map<string, EmittedRow[] | undefined>>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly maps: ViewMaps) {}

  /**
   * The rows each entry emits in `view` (`ddoc/view`), in order: [] for a deletion, undefined
   * when unknown (e.g. the document changed again before it was fetched), which the caller must
   * treat as "could be anywhere".
   */
  async rowsOf(db: Database, view: string, entries: readonly BacklogEntry[], signal: AbortSignal): Promise<(EmittedRow[] | undefined)[]> {
    const wanted = entries.filter((entry) => !entry.deleted && entry.rev !== undefined && !this.known.has(revKey(entry)));
    const fetching = wanted.filter((entry) => !this.pending.has(revKey(entry)));
    for (let start = 0; start < fetching.length; start += FETCH_CHUNK) {
      const chunk = fetching.slice(start, start + FETCH_CHUNK);
      // The fetch serves every request waiting for these revisions: its own time limit, not the first requester's.
      const fetch = this.fetch(db, chunk, AbortSignal.timeout(FETCH_TIMEOUT_MS));
      for (const entry of chunk) this.pending.set(revKey(entry), fetch);
      void fetch.finally(() => { for (const entry of chunk) this.pending.delete(revKey(entry)); }).catch(() => undefined);
    }
    await whileNotAborted(Promise.all([...new Set(wanted.map((entry) => this.pending.get(revKey(entry))))]), signal);
    return entries.map((entry) => (entry.deleted ? [] : this.known.get(revKey(entry))?.get(view)));
  }

  private async fetch(db: Database, entries: BacklogEntry[], signal: AbortSignal): Promise<void> {
    const docs = await revisions(db, entries, signal);
    for (const doc of docs.values()) {
      if (this.known.size >= CAPACITY) this.known.delete(this.known.keys().next().value as string);
      this.known.set(`${doc._id as string}@${doc._rev as string}`, this.maps.rowsByView(doc));
    }
  }
}

/**
 * The documents of `entries` at exactly the revisions named, by id: a document found at another
 * revision (changed again since) is left out, for a later request to see.
 */
export async function revisions(db: Database, entries: readonly BacklogEntry[], signal: AbortSignal): Promise<Map<string, StoredDoc>> {
  const body = await abortableRequest(db.server, {
    db: db.config.db, method: 'POST', path: '_all_docs', qs: { include_docs: true }, body: { keys: entries.map((entry) => entry.id) },
  }, signal) as { rows?: { doc?: StoredDoc | null }[] };
  const revs = new Map(entries.map((entry) => [entry.id, entry.rev]));
  const found = new Map<string, StoredDoc>();
  for (const row of body.rows ?? []) {
    const doc = row.doc;
    if (doc && typeof doc._id === 'string' && doc._rev === revs.get(doc._id)) found.set(doc._id, doc);
  }
  return found;
}

function revKey(entry: BacklogEntry): string {
  return `${entry.id}@${entry.rev ?? ''}`;
}
