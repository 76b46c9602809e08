/**
 * Publishing paced by the view indexes (PUBLISH_MAX_INDEX_LAG, issue 15: no wait after a bulk
 * publish). CouchDB writes documents faster than it indexes them (at 100,000 documents on the
 * CouchDB 3.5 fixture: 3,676 documents/s published, the harvest index about 1,300/s beside the
 * writes), so after a bulk publish the first reads wait for the rest of the build. With a limit
 * set, a publish request that wrote documents is answered only once the least advanced index
 * trails the database by at most the limit: a publisher that sends its batches one after another
 * runs at the index rate, its next batch written while the index takes the last one, and when it
 * has its last answer at most the limit of changes are unindexed. The reads after it place those
 * in their pages themselves (current-reads.ts, MAX_BACKLOG) instead of waiting. The wait moves
 * from the readers to the publisher, as Elasticsearch's `refresh=wait_for` moves it to the writer.
 *
 * How far each index trails is the store's own answer (index-state.ts: `_info`'s pending changes
 * or update_seq), so several node processes publishing into one CouchDB pace on the same figure;
 * nothing here is state another process needs. A request is held at most `maxWaitMs`, then
 * answered anyway (its documents are stored): a stalled index build never stops publishing.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as wait } from 'node:timers/promises';
import type { Couch } from './couch.js';
import { changesBehind, databaseUpdateSeq, designDocIndex } from './index-state.js';

/** How many database changes the least advanced index has still to process. */
export interface IndexLagSource { behind(signal: AbortSignal): Promise<number> }

/** The store's own figure: one `GET /{db}` and one `GET _design/{ddoc}/_info` per design doc, at once. */
export class StoreIndexLag implements IndexLagSource {
  constructor(private readonly couch: Couch, private readonly db: string, private readonly ddocs: readonly string[]) {}

  async behind(signal: AbortSignal): Promise<number> {
    const [updateSeq, ...indexes] = await Promise.all([
      databaseUpdateSeq(this.couch, this.db, signal),
      ...this.ddocs.map((ddoc) => designDocIndex(this.couch, this.db, `_design/${ddoc}`, signal)),
    ]);
    return Math.max(0, ...indexes.map((index) => changesBehind(index, updateSeq)));
  }
}

export type Admission = 'current' | 'caught_up' | 'gave_up' | 'unknown' | 'released';

export interface IndexPacerOptions {
  /** Documents the least advanced index may trail by when a publish request is answered. */
  maxLag: number;
  /** The longest one request is held. */
  maxWaitMs: number;
  /** How long a held request waits before it asks again (a probe another held request started meanwhile serves it). */
  probeMs: number;
  /**
   * A figure this recent (ms) that showed at most half the limit admits a request without asking
   * the store again. For a limit that is a backstop (the default, 50,000) rather than a pace: one
   * second of writes cannot add the other half, and a publish of 100 documents no longer costs
   * four store requests more. Unset: every request asks (a small limit is kept exactly).
   */
  reuseRecentMs?: number;
  /** Called each time a request is held, before it sleeps: the index warmer passes beside the writes meanwhile (index-warmer.ts, hurry). */
  onHeld?: () => void;
  /**
   * For a limit that is a backstop: once a figure beyond `maxLag` has held a request, the writes
   * that follow are paced to this smaller lag, until a call finds the indexes current before it
   * is held (the writes paused: noteFigure). A bulk load longer than the backstop then ends with
   * at most this many changes unindexed, so its first readers answer within a second or two
   * instead of waiting for up to `maxLag` changes (issue 15); a load shorter than the backstop
   * runs at the store's speed as before. This process's own state, a pace only: another process
   * publishing into the same database decides from its own figures, and nothing depends on it.
   */
  catchUpLag?: number;
  /** Called when catching up starts (a figure beyond maxLag) and ends (noteFigure), with that figure. */
  onCatchUp?: (catchingUp: boolean, lag: number) => void;
}

export class IndexPacer {
  /** The last probe and when it started (performance.now(), monotonic). */
  private probe: { started: number; lag: Promise<number> } | undefined;
  /** The last figure the store gave, and when its probe started. */
  private lastFigure: { started: number; lag: number } | undefined;
  /** Aborted when the node stops: nothing is held any more (release). */
  private readonly stopping = new AbortController();
  /** A figure beyond maxLag was seen, and no call has found the indexes current since before it was held: writes are paced to catchUpLag. */
  private catchingUp = false;

  constructor(private readonly source: IndexLagSource, private readonly options: IndexPacerOptions) {
    // Every held request's sleep listens to this one signal, and each listener goes when its sleep
    // ends: more than ten held at once (64 connections publishing) is no leak, so no warning.
    setMaxListeners(0, this.stopping.signal);
  }

  /**
   * Resolves when the indexes trail the database by at most `maxLag`: at once ('current'), after
   * a wait ('caught_up'), or after `maxWaitMs` however far they trail ('gave_up'). When the store
   * does not say ('unknown'), it resolves at once: pacing never turns a store error into one.
   * Once the node stops, nothing is held ('released').
   */
  async withinLimit(): Promise<Admission> {
    if (this.recentFigureAdmits()) return 'current';
    const deadline = Date.now() + this.options.maxWaitMs;
    // Only a figure asked for after this call counts: an older one may predate the caller's writes.
    let since = performance.now();
    let held = false;
    for (;;) {
      if (this.stopping.signal.aborted) return 'released';
      let lag: number;
      try {
        lag = await this.lagSince(since, deadline);
      } catch {
        return 'unknown';
      }
      this.noteFigure(lag, held);
      if (lag <= this.limit()) return held ? 'caught_up' : 'current';
      const left = deadline - Date.now();
      if (left <= 0) return 'gave_up';
      this.options.onHeld?.();
      held = true;
      // A probe any held request starts while this one sleeps serves this one too.
      since = performance.now();
      // Node's promise timer drops its abort listener when it fires: no listener piles up on the signal.
      await wait(Math.min(this.options.probeMs, left), undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /**
   * Answers every held request now and holds none from here on: the node is stopping, and their
   * documents are stored (runtime.ts calls it before it waits for the requests in flight).
   */
  release(): void {
    this.stopping.abort();
  }

  /** The lag a request is admitted at now: maxLag, or catchUpLag while a bulk load that met it goes on. */
  private limit(): number {
    return this.catchingUp && this.options.catchUpLag !== undefined ? this.options.catchUpLag : this.options.maxLag;
  }

  /**
   * Not while catching up: half of catchUpLag (100 by default) is no margin for a second of
   * writes. A batch of 1,000 written within a second of the held call before it was admitted on
   * that call's last figure, so a paced bulk load ended 1,000 behind instead of 200 (the
   * backstop test of publish-pacing.test.ts, about half of its runs on a busy machine).
   */
  private recentFigureAdmits(): boolean {
    const { reuseRecentMs } = this.options;
    return reuseRecentMs !== undefined && !this.catchingUp && this.lastFigure !== undefined
      && performance.now() - this.lastFigure.started < reuseRecentMs && this.lastFigure.lag <= this.limit() / 2;
  }

  /**
   * Catching up starts at a figure beyond maxLag and ends when a call finds the indexes current
   * before it is held: the writes paused. A held call's own figure of 0 does not end it: a
   * publisher that waits for its answer writes nothing meanwhile, so the indexes it waits for
   * catch up entirely (the embedded store finishes a view at a time), and its next batch is no pause.
   */
  private noteFigure(lag: number, held: boolean): void {
    if (this.options.catchUpLag === undefined) return;
    const catchingUp = lag > this.options.maxLag ? true : lag === 0 && !held ? false : this.catchingUp;
    if (catchingUp === this.catchingUp) return;
    this.catchingUp = catchingUp;
    this.options.onCatchUp?.(catchingUp, lag);
  }

  /** A figure asked for at or after `since`: the one in flight or last read if it is that recent, else a new one. */
  private lagSince(since: number, deadline: number): Promise<number> {
    if (this.probe && this.probe.started >= since) return this.probe.lag;
    const started = performance.now();
    const lag = this.source.behind(AbortSignal.timeout(Math.max(100, deadline - Date.now())));
    lag.then((figure) => { if (!this.lastFigure || this.lastFigure.started <= started) this.lastFigure = { started, lag: figure }; }, () => undefined);
    this.probe = { started, lag };
    return lag;
  }
}
