/**
 * Follows the `_changes` feed of the incoming database and hands every arrived document to
 * inbound distribution (src/services/distribute/inbound.service.ts), then removes it from
 * incoming. The position is a `_local/` checkpoint written after each processed batch, so a
 * restarted node resumes where it was; processing is idempotent, so a crash anywhere between
 * storing, removing and checkpointing loses and duplicates nothing (docs/scaling.md).
 *
 * The feed is read page by page (normal feed, `since` = checkpoint, `limit`); when a page comes
 * back empty, one longpoll request (with `timeout`) waits for the next change. `seq` values are
 * opaque (CouchDB "Changes Feed"): only passed back as `since`.
 *
 * Where several node processes share the store (CouchDB), only the holder of the `incoming`
 * lease follows (follower-lease.ts); the others try for it every third of its period. The
 * embedded store has one node process (data-dir-in-use.ts) and no lease.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { IncomingRepository } from '../../storage/distribution-incoming.js';
import type { InboundReceiver } from './inbound-receiver.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { FollowerLease } from './follower-lease.js';

export interface FollowerOptions { batchSize?: number; waitMs?: number; settleMs?: number }

/** Waits `ms`, or less when the follower stops; Node's promise timer leaves no listener on `signal` once it fires. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class IncomingFollower {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly batchSize: number;
  private readonly waitMs: number;
  private readonly settleMs: number;

  constructor(
    private readonly incoming: IncomingRepository,
    private readonly receiver: InboundReceiver,
    private readonly logger: Logger,
    options: FollowerOptions = {},
    /** Undefined where this process is the store's only one (the embedded store). */
    private readonly lease?: FollowerLease,
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.waitMs = options.waitMs ?? 10_000;
    this.settleMs = options.settleMs ?? 300;
  }

  start(): void {
    this.loop ??= this.follow();
  }

  /** Stops after the batch in progress (a waiting longpoll is abandoned). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.lease?.release();
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private async follow(): Promise<void> {
    let since: unknown;
    let loaded = false;
    let backoff = 250;
    while (!this.stopping) {
      try {
        if (this.lease && !(await this.lease.hold())) {
          await sleep(this.lease.ttlMs / 3, this.abort.signal);
          // The holder moves the checkpoint meanwhile: read it again once this process holds the lease.
          loaded = false;
          continue;
        }
        if (!loaded) { since = await this.incoming.checkpoint(); loaded = true; }
        const page = await this.incoming.changes(since, this.batchSize);
        if (this.stopping) break;
        if (page.results.length === 0) {
          await this.receiver.flush();
          await this.incoming.changes(since, 1, this.waitMs, this.abort.signal);
          // A replication writes in batches: letting a few arrive makes fewer, fuller pages
          // (each page costs the same handful of store round trips, whatever its size).
          await sleep(this.settleMs, this.abort.signal);
          continue;
        }
        const complete = await this.processPage(page.results);
        if (complete) {
          since = page.lastSeq;
          await this.incoming.saveCheckpoint(since);
        } else {
          await sleep(200, this.abort.signal); // conflicts: the same page again, its stored part is now a duplicate
        }
        backoff = 250;
      } catch (error) {
        if (this.stopping) break;
        this.logger.warn({ err: (error as Error).message, retryInMs: backoff }, 'incoming follower: retrying');
        await sleep(backoff, this.abort.signal);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  /** true when every document of the page is done with (stored, a duplicate, or rejected). */
  private async processPage(changes: { id: string; deleted?: boolean; doc?: StoredDoc }[]): Promise<boolean> {
    const arrived = changes.filter((change) => !change.deleted && change.doc && !change.id.startsWith('_design/')).map((change) => change.doc as StoredDoc);
    if (arrived.length === 0) return true;
    const result = await this.receiver.receive(arrived);
    const failed = new Set(result.failed);
    await this.incoming.remove(arrived.filter((doc) => !failed.has(doc._id) && doc._rev).map((doc) => ({ _id: doc._id, _rev: doc._rev as string })));
    return failed.size === 0;
  }
}
