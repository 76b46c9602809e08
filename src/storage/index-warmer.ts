/**
 * Keeps the view indexes of a database current as documents arrive (issue 15: no wait after a
 * bulk publish). Without it the first obtain, slice or harvest request after a large publish pays
 * for building its design doc's index from scratch: minutes at 100,000 documents.
 *
 * It watches the database's `update_seq` and, when it moved, queries every view with `limit=0`,
 * which brings each index up to date and returns no rows (CouchDB "GET /{db}/_design/{ddoc}/_view/
 * {view}": a query without `stale`/`update=false` updates the index first). Every view is
 * queried, not one per design doc: CouchDB builds a design doc's views in one pass, so the others
 * then answer at once, but the embedded store (PouchDB) keeps an index per view.
 *
 * Coalesced and bounded: a pass starts once the database has been quiet for `quietMs`, or when
 * the indexes have trailed the writes for `maxLagMs`, never two at a time: a bulk load is indexed
 * once it pauses (or every half minute while it goes on), so warming does not compete with the
 * writes themselves. Nothing here is state another node process
 * needs: two processes warming the same store only ask it the same idempotent question.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Logger } from 'pino';
import { abortableRequest, type Couch } from './couch.js';
import { databaseUpdateSeq, seqNumber } from './index-state.js';
import type { WriteActivity } from './view-reader.js';

export interface WarmTarget { ddoc: string; views: string[] }

export interface IndexWarmerOptions {
  /** How often the database's update_seq is read. */
  pollMs: number;
  /** A pass starts when the sequence has not moved for this long... */
  quietMs: number;
  /**
   * ...or when writes have gone on this long since the indexes were last current: since the first
   * write after a pass, not since the pass. Counted from the pass, a node idle for longer than
   * this started a pass at the first write of the next burst, beside it: a 20,000-document
   * distribution into a node idle for half a minute wrote each batch in 122 ms on CouchDB 3.5
   * against 73 ms for the same batches without the pass (bench distribute, 2026-12-06).
   */
  maxLagMs: number;
  /**
   * A pass starts as soon as the database moved, quiet or not: publishing is paced by the indexes
   * (index-pacer.ts), so the writes wait for the passes rather than compete with them.
   */
  eager?: boolean;
}

export const DEFAULT_WARMER_OPTIONS: IndexWarmerOptions = { pollMs: 250, quietMs: 1000, maxLagMs: 30000 };

/** The longest one view query of a pass may take (a first build of a large index). */
const PASS_QUERY_TIMEOUT_MS = 30 * 60 * 1000;

export class IndexWarmer implements WriteActivity {
  private stopped = true;
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();
  /** The sequence the indexes were last brought up to (as a number, compared only with this database's own). */
  private warmedSeq = -1;
  /** The sequence the last poll saw (-1 before the first). */
  private seenSeq = -1;
  private passes = 0;
  /** Passes run beside the writes until then (Date.now()), as with `eager` (hurry). */
  private hurriedUntil = 0;

  constructor(
    private readonly couch: Couch,
    private readonly db: string,
    private readonly targets: WarmTarget[],
    private readonly logger: Logger,
    private readonly options: IndexWarmerOptions = DEFAULT_WARMER_OPTIONS,
  ) {}

  /**
   * A hint for range reads (view-reader.ts, readCurrent): true when the last poll found nothing
   * written since the last pass, or when the warmer is not running (no hint: reads just ask).
   */
  indexesLikelyCurrent(): boolean {
    return this.stopped || (this.seenSeq !== -1 && this.seenSeq === this.warmedSeq);
  }

  latestSeq(): number | undefined {
    return this.stopped || this.seenSeq === -1 ? undefined : this.seenSeq;
  }

  /**
   * Passes run beside the writes, quiet or not, for the next `forMs`: publish requests are being
   * held until the indexes catch up (index-pacer.ts, a backstop limit), so the writes now wait for
   * the passes rather than compete with them, as with `eager`. On the embedded store, which
   * indexes only when asked, waiting for a quiet second before each pass made a held 100,000-
   * document publish hold its batches the whole VIEW_WAIT_MS while one long pass caught up.
   */
  hurry(forMs: number): void {
    this.hurriedUntil = Math.max(this.hurriedUntil, Date.now() + forMs);
  }

  /** Passes completed so far (for tests and /metrics). */
  get completedPasses(): number { return this.passes; }

  start(): void {
    if (!this.stopped || this.targets.length === 0) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    let lastMoveAt = Date.now();
    /** When a poll first found writes the indexes have not seen (undefined while they are current). */
    let behindSince: number | undefined;
    while (!this.stopped) {
      try {
        const seq = await this.currentSeq();
        const now = Date.now();
        if (seq !== this.seenSeq) { this.seenSeq = seq; lastMoveAt = now; }
        const behind = seq !== this.warmedSeq;
        if (!behind) behindSince = undefined;
        else behindSince ??= now;
        const quiet = now - lastMoveAt >= this.options.quietMs;
        const overdue = behindSince !== undefined && now - behindSince >= this.options.maxLagMs;
        const eager = this.options.eager === true || now < this.hurriedUntil;
        if (behind && (quiet || overdue || this.warmedSeq === -1 || eager)) {
          await this.pass();
          this.warmedSeq = seq;
          behindSince = undefined;
        }
      } catch (error) {
        // The store may be restarting or a build may have hit the store's own timeout (CouchDB
        // answers `timeout` and keeps building): try again on the next tick.
        if (!this.stopped) this.logger.debug({ err: (error as Error).message }, 'index warming pass failed; retrying');
      }
      await this.sleep(this.options.pollMs);
    }
  }

  private async currentSeq(): Promise<number> {
    return seqNumber(await databaseUpdateSeq(this.couch, this.db, this.abort.signal));
  }

  private async pass(): Promise<void> {
    const started = Date.now();
    // One view at a time: a request that needs a view the warmer is not building waits only for
    // its own (CouchDB builds a design doc's views in one pass; the embedded store keeps a queue
    // per view). Measured at 20,000 documents on the embedded store, all views at once made the
    // first obtain after a bulk publish wait 40 s for the whole pass, against 4 s for its own view.
    // With publishing paced by the indexes (eager) too: all at once indexed 451 documents/s
    // against 432 one at a time, and the first pages after came 2.4-2.6 s after the publish
    // against 1.7-2.1 s (20,000 documents, embedded store).
    for (const target of this.targets) {
      for (const view of target.views) {
        if (this.stopped) return;
        const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(PASS_QUERY_TIMEOUT_MS)]);
        await abortableRequest(this.couch, { db: this.db, method: 'POST', path: `_design/${target.ddoc}/_view/${view}`, body: { limit: 0 } }, signal);
      }
    }
    this.passes += 1;
    this.logger.debug({ db: this.db, ms: Date.now() - started }, 'indexes brought up to date');
  }

  /**
   * Waits `ms`, or less when the warmer stops. Node's promise timer removes its abort listener
   * when it fires; a hand-made one that did not left one closure on the warmer's signal per poll
   * (four a second: 2,700 after ten minutes of a node's life, and growing).
   */
  private sleep(ms: number): Promise<void> {
    return wait(ms, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }
}

/** The views of one database's design docs, as warming targets. */
export function warmTargets(files: { db: string; doc: { _id: string; views?: Record<string, unknown> } }[], db: string): WarmTarget[] {
  return files
    .filter((file) => file.db === db && file.doc.views && Object.keys(file.doc.views).length > 0)
    .map((file) => ({ ddoc: file.doc._id.replace(/^_design\//, ''), views: Object.keys(file.doc.views ?? {}) }));
}
