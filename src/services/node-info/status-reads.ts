/**
 * The store reads of /status (node-info.service.ts) and how long they are waited for: LateRead
 * (a read whose last answer serves once the call's deadline has passed), withinStoreAnswer (a
 * read that becomes a 503 after STORE_ANSWER_MS) and delay.
 */
import { storeNotAnswering } from '../../storage/couch.js';

/**
 * How long the counters read of one call may take before the store counts as not answering and
 * the call answers 503 (within the Dockerfile HEALTHCHECK's 5 s timeout, so a hung store is an
 * unhealthy answer, not a probe that times out; and never a request held for as long as the store hangs).
 */
export const STORE_ANSWER_MS = 3_000;

/**
 * A store read of each /status: waited for until the call's deadline, after which its last
 * answer serves (the read goes on and updates it). Waited for in full when there is no answer
 * yet, when the last one is older than `maxAgeMs`, or when the last read failed: a store that is
 * down is reported (the JSON error exit: 503), never hidden behind an older answer.
 */
export class LateRead<T> {
  private last: { value: T; read: number; at: number } | undefined;
  private lastFailed = false;
  private reads = 0;

  constructor(private readonly read: () => Promise<T>, private readonly maxAgeMs: number) {}

  /** Starts one read. `done` never rejects: a read failing after the answer has gone is no unhandled rejection. */
  start(): { done: Promise<void>; arrived(): boolean; answer(): Promise<T> } {
    const number = (this.reads += 1);
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    const done = this.read().then((value) => {
      outcome = { ok: true, value };
      // A slow read that ends after a later one does not replace its newer answer.
      if (!this.last || this.last.read < number) { this.last = { value, read: number, at: Date.now() }; this.lastFailed = false; }
    }, (error: unknown) => {
      outcome = { ok: false, error };
      if (!this.last || this.last.read < number) this.lastFailed = true;
    });
    const answer = async (): Promise<T> => {
      if (!outcome && this.last && !this.lastFailed && Date.now() - this.last.at < this.maxAgeMs) return this.last.value;
      await done;
      if (outcome?.ok === false) throw outcome.error;
      return (outcome as { value: T }).value;
    };
    return { done, arrived: () => outcome?.ok === true, answer };
  }
}

/** `read`, or a 503 once the store has taken STORE_ANSWER_MS (the read itself goes on behind). */
export function withinStoreAnswer<T>(read: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(storeNotAnswering(STORE_ANSWER_MS, what)), STORE_ANSWER_MS);
    read.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms).unref(); });
