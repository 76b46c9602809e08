/**
 * `_changes` since one sequence (the changes an index has not seen yet, current-reads.ts), read once
 * for every request that was already waiting when the read started. Concurrent range reads under
 * continuous writing mostly find the index at the same sequence, so one read serves a whole batch
 * of them. A read that started before a request arrived is never shared with it: that request
 * must see every change acknowledged before it arrived, so it waits for the next read, which
 * starts as soon as the running one ends (one read at a time per sequence and database).
 */
import { abortableRequest, whileNotAborted } from './couch.js';
import type { Database } from './documents.js';

/** One entry of `_changes` without documents: the winning revision, as the index will see it. */
export interface BacklogEntry { id: string; rev: string | undefined; deleted: boolean }

/** A shared read's own limit: it serves several requests, none of whose deadlines is its own. */
const READ_TIMEOUT_MS = 30000;

interface Queue { running?: Promise<BacklogEntry[] | undefined>; waiting?: Promise<BacklogEntry[] | undefined> }

export class BacklogFeed {
  private readonly queues = new Map<string, Queue>();

  /** Up to `limit` changes after `since`, or undefined when there are more. */
  changesSince(db: Database, since: string, limit: number, signal: AbortSignal): Promise<BacklogEntry[] | undefined> {
    const key = `${db.config.db}\n${since}`;
    const queue = this.queues.get(key) ?? {};
    this.queues.set(key, queue);
    const start = (): Promise<BacklogEntry[] | undefined> => {
      const read = readChanges(db, since, limit);
      queue.running = read;
      queue.waiting = undefined;
      void read.catch(() => undefined).finally(() => {
        if (queue.running === read) queue.running = undefined;
        if (!queue.running && !queue.waiting) this.queues.delete(key);
      });
      return read;
    };
    // Join the read that has not started yet; else start one, or queue one behind the running read.
    if (queue.waiting) return whileNotAborted(queue.waiting, signal);
    if (!queue.running) return whileNotAborted(start(), signal);
    queue.waiting = queue.running.catch(() => undefined).then(start);
    return whileNotAborted(queue.waiting, signal);
  }
}

async function readChanges(db: Database, since: string, limit: number): Promise<BacklogEntry[] | undefined> {
  // seq_interval: CouchDB computes a sequence only for every Nth entry (none of which this reads).
  const feed = await abortableRequest(db.server, {
    db: db.config.db, path: '_changes', qs: { since, limit: limit + 1, seq_interval: limit + 1 },
  }, AbortSignal.timeout(READ_TIMEOUT_MS)) as { results?: { id: string; deleted?: boolean; changes?: { rev?: string }[] }[] };
  const results = feed.results ?? [];
  if (results.length > limit) return undefined;
  return results.map((change) => ({ id: change.id, rev: change.changes?.[0]?.rev, deleted: change.deleted === true }));
}
