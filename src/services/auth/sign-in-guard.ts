/**
 * What a wrong password may cost the node. Each password check is a slow, memory-hard KDF
 * (src/domain/password.ts) on libuv's thread pool, which compression and file reads share, so:
 * - at most KDF_CONCURRENCY checks run at once, and a burst beyond KDF_QUEUE waiting is refused
 *   with 503 and Retry-After, instead of queueing without bound;
 * - an account name that failed FAILURE_LIMIT times within FAILURE_WINDOW_MS from one address is
 *   refused there with 429 and Retry-After before any KDF runs, until its oldest failure leaves
 *   the window; a success clears the count (OWASP Authentication Cheat Sheet: throttle failed
 *   attempts. Per name and address: nobody can lock a publisher out from elsewhere, and the
 *   publishers behind one address do not lock each other out).
 * The counts are this process's own protection; another node process keeps its own, and no
 * request depends on them (issue 14: no state a second process would need).
 */
import { AppError } from '../../errors/app-error.js';
import { ConcurrencyLimit } from '../../domain/concurrency-limit.js';

export const KDF_CONCURRENCY = 2;
export const KDF_QUEUE = 64;
export const FAILURE_LIMIT = 10;
export const FAILURE_WINDOW_MS = 60_000;
/** Addresses remembered at most; the oldest are forgotten first. */
const MAX_ADDRESSES = 10_000;

export class SignInGuard {
  private readonly checks = new ConcurrencyLimit(KDF_CONCURRENCY);
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Throws 429 when `user` failed too often lately from `client`. */
  admit(client: string | undefined, user: string): void {
    if (client === undefined) return;
    const recent = this.recent(`${client}\0${user}`);
    if (recent.length < FAILURE_LIMIT) return;
    const retryAfter = Math.max(1, Math.ceil(((recent[0] as number) + FAILURE_WINDOW_MS - this.now()) / 1000));
    throw new AppError(429, 'too_many_attempts', `too many failed sign-ins for this account from this address: retry in ${retryAfter} s`, true, { retryAfter });
  }

  failed(client: string | undefined, user: string): void {
    if (client === undefined) return;
    const key = `${client}\0${user}`;
    const recent = this.recent(key);
    recent.push(this.now());
    this.failures.delete(key); // re-inserted last: the map's order is the age of its entries
    this.failures.set(key, recent.slice(-FAILURE_LIMIT));
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value as string);
  }

  succeeded(client: string | undefined, user: string): void {
    if (client !== undefined) this.failures.delete(`${client}\0${user}`);
  }

  /** Runs one KDF check within the concurrency limit. */
  async check<T>(work: () => Promise<T>): Promise<T> {
    if (this.checks.queued >= KDF_QUEUE) throw new AppError(503, 'too_many_attempts', 'too many password checks at once: retry shortly', true, { retryAfter: 1 });
    return this.checks.run(work);
  }

  private recent(key: string): number[] {
    const since = this.now() - FAILURE_WINDOW_MS;
    const kept = (this.failures.get(key) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.failures.delete(key);
    return kept;
  }
}
