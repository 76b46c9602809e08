/**
 * Documents read on every request (the node and service descriptions, the filter, accounts) kept
 * in memory and kept true by the database's own `_changes` feed (CouchDB "GET /{db}/_changes",
 * feed=longpoll): a change made through any node process, or by an operator straight in CouchDB,
 * drops the copy as soon as the store reports it (milliseconds), and a write made through this
 * process drops it at once; the next read takes the new version from the store and keeps it.
 * Each request is then one store round trip shorter (issue 19: a publish made four requests, a
 * harvest page three).
 *
 * Only a cache: nothing here is state another process needs, and whenever the feed is not
 * following (not started yet, store restarting, feed failed) every read goes to the store and
 * nothing is kept, so a copy is never older than the feed's last report.
 */
import type { Logger } from 'pino';
import { abortableRequest, type Couch } from './couch.js';
import { database, getOrUndefined, type StoredDoc } from './documents.js';
import { databaseUpdateSeq, seqNumber } from './index-state.js';

/** How long one longpoll waits for a change before asking again (CouchDB's `timeout`, ms). */
const LONGPOLL_MS = 30000;
const RETRY_MS = 1000;
/** Ids kept as missing at most (keep()). */
export const MAX_MISSES = 1000;

interface ChangesAnswer { last_seq: unknown; results: { id: string }[] }

export class FollowedDocuments {
  private readonly copies = new Map<string, StoredDoc | undefined>();
  /** The ids kept as missing, oldest first. */
  private readonly misses = new Set<string>();
  /** Bumped for an id on every change: a read that raced a change does not keep its answer. */
  private readonly versions = new Map<string, number>();
  private following = false;
  /** The last sequence the feed has reported up to (as a number: compared only with this database's own). */
  private reportedSeq = -1;
  private started = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private markFollowing: () => void = () => undefined;
  /** Resolves once the feed first follows: reads from then on are kept. */
  readonly startedFollowing = new Promise<void>((resolve) => { this.markFollowing = resolve; });

  constructor(private readonly couch: Couch, readonly db: string, private readonly logger?: Logger) {}

  /** The document (undefined when missing), from memory while the feed follows, else from the store. */
  async get(id: string): Promise<StoredDoc | undefined> {
    // _local documents never appear on _changes (CouchDB "Local (non-replicating) Documents").
    if (id.startsWith('_local/')) return getOrUndefined<StoredDoc>(database(this.couch, this.db), id);
    this.start();
    if (this.following && this.copies.has(id)) return this.copies.get(id);
    const version = this.versions.get(id) ?? 0;
    const wasFollowing = this.following;
    const doc = await getOrUndefined<StoredDoc>(database(this.couch, this.db), id);
    // Kept only when the feed followed all along the read and reported no change of this id meanwhile.
    if (wasFollowing && this.following && (this.versions.get(id) ?? 0) === version) this.keep(id, doc);
    return doc;
  }

  /**
   * Keeps a read. Ids found missing are kept too (an unknown account name is then one lookup), but
   * at most MAX_MISSES of them, the oldest forgotten first: names sent by anyone (random Basic
   * user names) must not grow the process's memory without bound.
   */
  private keep(id: string, doc: StoredDoc | undefined): void {
    this.copies.set(id, doc);
    if (doc !== undefined) return;
    this.misses.delete(id);
    this.misses.add(id);
    if (this.misses.size <= MAX_MISSES) return;
    const oldest = this.misses.values().next().value as string;
    this.misses.delete(oldest);
    if (this.copies.get(oldest) === undefined) this.copies.delete(oldest);
  }

  /** A write made through this process: the next read goes to the store, not waiting for the feed's report. */
  changed(id: string): void {
    this.bump(id);
  }

  /**
   * Resolves once every change the database holds now has been taken in (or at once when the feed
   * is not following, as reads then go to the store). For a writer outside this process that must
   * see its change applied before it goes on, e.g. a test that edits a service description in CouchDB.
   */
  async settled(timeoutMs = 5000): Promise<void> {
    if (!this.following) return;
    // Bounded like the wait below, so a store that stops answering fails the caller, not hangs it.
    const target = seqNumber(await databaseUpdateSeq(this.couch, this.db, AbortSignal.any([this.abort.signal, AbortSignal.timeout(timeoutMs)])));
    const deadline = Date.now() + timeoutMs;
    while (this.following && this.reportedSeq < target) {
      if (Date.now() > deadline) throw new Error(`${this.db}: the _changes feed has not reported sequence ${target} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** How many documents (and missing ids) are kept: for tests and monitoring. */
  get kept(): number {
    return this.copies.size;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.loop = this.follow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.following = false;
    this.abort.abort();
    await this.loop;
  }

  private bump(id: string): void {
    this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
    this.copies.delete(id);
  }

  private forget(): void {
    this.following = false;
    for (const id of this.copies.keys()) this.bump(id);
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        // Changes after this sequence are all reported: from here on, reads may be kept.
        let since = await databaseUpdateSeq(this.couch, this.db, this.abort.signal);
        this.reportedSeq = seqNumber(since);
        this.following = true;
        this.markFollowing();
        while (!this.stopped) {
          // Ids only (no include_docs): a change drops the copy, and the next read of it goes to the
          // store once. With the documents, every process received every write of every document of
          // the database, the often rewritten ones too (an OAuth nonce record on each signed request,
          // leases, key caches), whether it kept them or not.
          const answer = await abortableRequest(this.couch, {
            db: this.db, path: '_changes', qs: { feed: 'longpoll', since: String(since), timeout: LONGPOLL_MS },
          }, this.abort.signal) as ChangesAnswer;
          for (const change of answer.results) this.bump(change.id);
          since = answer.last_seq;
          this.reportedSeq = seqNumber(since);
        }
      } catch (error) {
        this.forget();
        if (this.stopped) return;
        this.logger?.debug({ db: this.db, err: (error as Error).message }, 'document feed interrupted; reading from the store until it follows again');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}
