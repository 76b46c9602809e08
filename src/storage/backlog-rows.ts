/**
 * The view rows of documents the index has not seen yet (current-reads.ts), computed once per
 * document revision and shared by every request of this process. A revision's content never
 * changes, so rows computed for `id@rev` stay true: nothing here can go stale, it can only be
 * missing (then fetched). Under continuous writing the concurrent range reads see much the same
 * backlog, so each of its documents is fetched and mapped once, not once per request.
 * Bounded (oldest entries dropped first); a cache only, no state another process needs.
 */
import type { DocumentScope } from 'nano';
import { abortableRequest } from './couch.js';
import type { EmittedRow, ViewMaps } from './view-maps.js';

/** One entry of `_changes` without documents: the winning revision, as the index will see it. */
export interface BacklogEntry { id: string; rev: string | undefined; deleted: boolean }

const CAPACITY = 4000;

export class BacklogRows {
  private readonly known = new Map<string, Map<string, EmittedRow[] | undefined>>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly maps: ViewMaps) {}

  /**
   * The rows each entry emits in `view` (`ddoc/view`), in order: [] for a deletion, undefined
   * when unknown (e.g. the document changed again before it was fetched), which the caller must
   * treat as "could be anywhere".
   */
  async rowsOf(db: DocumentScope<unknown>, view: string, entries: readonly BacklogEntry[], signal: AbortSignal): Promise<(EmittedRow[] | undefined)[]> {
    const wanted = entries.filter((entry) => !entry.deleted && entry.rev !== undefined && !this.known.has(revKey(entry)));
    const fetching = wanted.filter((entry) => !this.pending.has(revKey(entry)));
    if (fetching.length > 0) {
      const fetch = this.fetch(db, fetching, signal);
      for (const entry of fetching) this.pending.set(revKey(entry), fetch);
      void fetch.finally(() => { for (const entry of fetching) this.pending.delete(revKey(entry)); }).catch(() => undefined);
    }
    await Promise.all([...new Set(wanted.map((entry) => this.pending.get(revKey(entry))))]);
    return entries.map((entry) => (entry.deleted ? [] : this.known.get(revKey(entry))?.get(view)));
  }

  private async fetch(db: DocumentScope<unknown>, entries: BacklogEntry[], signal: AbortSignal): Promise<void> {
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
export async function revisions(db: DocumentScope<unknown>, entries: readonly BacklogEntry[], signal: AbortSignal): Promise<Map<string, Record<string, unknown>>> {
  const body = await abortableRequest(db.server, {
    db: db.config.db, method: 'POST', path: '_all_docs', qs: { include_docs: true }, body: { keys: entries.map((entry) => entry.id) },
  }, signal) as { rows?: { doc?: Record<string, unknown> | null }[] };
  const revs = new Map(entries.map((entry) => [entry.id, entry.rev]));
  const found = new Map<string, Record<string, unknown>>();
  for (const row of body.rows ?? []) {
    const doc = row.doc;
    if (doc && typeof doc._id === 'string' && doc._rev === revs.get(doc._id)) found.set(doc._id, doc);
  }
  return found;
}

function revKey(entry: BacklogEntry): string {
  return `${entry.id}@${entry.rev ?? ''}`;
}
