/**
 * The linked payloads OAI-PMH emits (`payload_placement: linked`, fetched from `payload_locator`,
 * or `payload_schema_locator` without it: metadata.ts, linkedPayloadLocator), kept in this process for a while:
 * without it every emission fetched, so a page of 100 linked records made 100 fetches and
 * harvesting it again as many more (an audit saw 200 MB of fetches). One LRU cache with a byte
 * budget, shared by GetRecord and both lists; concurrent requests for one URL share one fetch.
 *
 * Only a cache: another node process keeps its own, or none, and answers the same (docs/scaling.md).
 */
import type { SafeFetcher, SafeFetchResult } from '../../net/safe-fetch.js';

export type FetcherFor = (allowPrivate: boolean) => SafeFetcher;

export interface LinkedPayloadOptions {
  /** Memory the kept answers may take, in bytes (see `sizeOf`). */
  maxBytes: number;
  /** How long a fetched payload is served before it is fetched again. */
  ttlMs: number;
  /** How long a failed fetch is answered as failed before it is tried again. */
  failureTtlMs: number;
  now?: () => number;
}

interface Entry { result: SafeFetchResult; expires: number; bytes: number }

/**
 * What an entry is charged: two bytes a character of its texts (a V8 string takes one or two
 * bytes a character, so this is the most it can take), plus a little for the entry itself.
 */
function sizeOf(key: string, result: SafeFetchResult): number {
  const text = result.ok ? result.text.length + (result.contentType?.length ?? 0) + result.url.length : result.reason.length;
  return 2 * (key.length + text) + 200;
}

export class LinkedPayloads {
  /** Least recently used first: a Map iterates in insertion order, and a hit is re-inserted. */
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<SafeFetchResult>>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly fetchers: FetcherFor, private readonly options: LinkedPayloadOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Bytes charged to the kept answers (for tests and monitoring). */
  get size(): number {
    return this.bytes;
  }

  /**
   * The payload at `url`, from memory while its entry lasts. Kept apart by `allowPrivate`: the
   * fetcher that refuses private addresses must never be answered with what the other fetched.
   */
  fetchText(url: string, allowPrivate: boolean): Promise<SafeFetchResult> {
    const key = `${allowPrivate ? 'private' : 'public'} ${url}`;
    const entry = this.entries.get(key);
    if (entry) {
      this.remove(key, entry);
      if (entry.expires > this.now()) {
        this.insert(key, entry);
        return Promise.resolve(entry.result);
      }
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchers(allowPrivate).fetchText(url)
        .then((result) => { this.keep(key, result); return result; })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private keep(key: string, result: SafeFetchResult): void {
    const bytes = sizeOf(key, result);
    if (bytes > this.options.maxBytes) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.insert(key, { result, bytes, expires: this.now() + (result.ok ? this.options.ttlMs : this.options.failureTtlMs) });
    for (const [oldest, evicted] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.remove(oldest, evicted);
    }
  }

  private insert(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
