/**
 * The view keys of documents the index has not seen yet (current-reads.ts), fetched once per
 * document revision and shared by every request of this process. A revision's content never
 * changes, so a key computed for `id@rev` stays true: nothing here can go stale, it can only be
 * missing (then fetched). Under continuous writing the concurrent range reads see much the same
 * backlog, so each of its documents is fetched and mapped once, not once per request.
 * Bounded (oldest entries dropped first); a cache only, no state another process needs.
 */
import type { DocumentScope } from 'nano';
import { abortableRequest } from './couch.js';
import type { ViewMaps } from './view-maps.js';

/** One entry of `_changes` without documents: the winning revision, as the index will see it. */
export interface BacklogEntry { id: string; rev: string | undefined; deleted?: boolean }

const CAPACITY = 4000;

export class BacklogKeys {
  private readonly known = new Map<string, Map<string, unknown[] | undefined>>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly maps: ViewMaps) {}

  /**
   * The keys each live entry emits in `ddoc/view`, in order (undefined: unknown, e.g. the document
   * changed again before it was fetched, which the caller treats as "may touch the page").
   */
  async keysOf(db: DocumentScope<unknown>, view: string, entries: readonly BacklogEntry[], signal: AbortSignal): Promise<(unknown[] | undefined)[]> {
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
    const body = await abortableRequest(db.server, {
      db: db.config.db, method: 'POST', path: '_all_docs', qs: { include_docs: true }, body: { keys: entries.map((entry) => entry.id) },
    }, signal) as { rows?: { id?: string; doc?: Record<string, unknown> | null }[] };
    const revs = new Map(entries.map((entry) => [entry.id, entry.rev]));
    for (const row of body.rows ?? []) {
      const doc = row.doc;
      // Only the revision the backlog names: a later one is for a later request to see.
      if (!doc || typeof doc._id !== 'string' || doc._rev !== revs.get(doc._id)) continue;
      if (this.known.size >= CAPACITY) this.known.delete(this.known.keys().next().value as string);
      this.known.set(`${doc._id}@${doc._rev}`, this.maps.keysByView(doc));
    }
  }
}

function revKey(entry: BacklogEntry): string {
  return `${entry.id}@${entry.rev ?? ''}`;
}
