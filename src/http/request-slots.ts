/**
 * At most `limit` heavy requests in this node process at once: list pages (slice, JSON harvest,
 * OAI-PMH, obtain without an ID) and publish batches. The others wait in arrival order, at most
 * `waitMs`, then are answered 503 with Retry-After in their protocol's form (issue 14: load).
 *
 * Why: a page is tens of milliseconds of one event loop's time (the store's rows parsed, the
 * records rendered), and a light request (obtain by doc_ID, /status) queued behind every page in
 * progress. CouchDB serves a light request beside heavy ones at once; the node made it wait its
 * turn. Measured with `bench load` on CouchDB 3.5 (10,000 documents, 64 connections, 20 s,
 * 2026-12-06): with no limit, obtain by ID 96.6 req/s (p99 643 ms), the event loop's delay p99
 * 285 ms; with 8 heavy requests at a time 258 req/s (p99 226 ms), with 4 338 req/s (p99 164 ms,
 * delay p99 74 ms), while the pages kept their rate (8.8-11.4 a second of each kind either way).
 * Publish batches are heavy too: with pages alone limited, publishing took the freed time and the
 * store's indexes fell behind the writes, so the pages let through waited for them (session 20).
 *
 * A slot is held while the request is handled, not while a streamed answer is sent, so a slow
 * reader holds none. A request whose client has gone while it waited is dropped, not run.
 * Per-process, like the event loop it protects: two node processes have a limit each.
 */
import { AppError } from '../errors/app-error.js';
import { ConcurrencyLimit } from '../domain/concurrency-limit.js';
import type { NodeContext } from './context.js';

/** Retry-After of the 503 for a request that waited its longest: the slots turn over within a second or so. */
const BUSY_RETRY_AFTER_SECONDS = 2;

export class RequestSlots {
  /** Undefined: no limit (every request runs at once). */
  private readonly turns: ConcurrencyLimit | undefined;

  /** `limit` undefined: no limit. `onRefused`: a request waited its longest (for /metrics). */
  constructor(readonly limit: number | undefined, private readonly waitMs: number, private readonly onRefused: () => void = () => undefined) {
    this.turns = limit === undefined ? undefined : new ConcurrencyLimit(limit);
  }

  /** Requests holding a slot, and waiting for one (for /metrics and tests). */
  get busy(): { running: number; waiting: number } { return { running: this.turns?.active ?? 0, waiting: this.turns?.queued ?? 0 }; }

  /**
   * `work` in a slot, after waiting for one. A request whose client went away while it waited
   * is not run: its answer would go nowhere (the 503 thrown instead is not sent either).
   */
  run<T>(ctx: NodeContext, work: () => Promise<T>): Promise<T> {
    if (!this.turns) return work();
    return this.turns.run(async () => {
      // The connection, not the request stream (destroyed once its body has been read).
      if (ctx.req.socket.destroyed) throw new AppError(503, 'node_busy', 'the client went away while the request waited for a slot');
      return work();
    }, { maxWaitMs: this.waitMs, timedOut: () => this.refusal() });
  }

  private refusal(): AppError {
    this.onRefused();
    return new AppError(503, 'node_busy', `the node is busy: ${this.limit} list pages and publish batches were in progress for ${this.waitMs / 1000} s; retry in ${BUSY_RETRY_AFTER_SECONDS} s`, true, { retryAfter: BUSY_RETRY_AFTER_SECONDS });
  }
}
