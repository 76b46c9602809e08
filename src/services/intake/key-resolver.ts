/**
 * Public keys of signers, fetched from the signature's key_location URLs (spec "Authentication",
 * 4) through the SSRF-guarded fetcher, and cached in the node database for a day so that a batch
 * of documents signed by one key costs one fetch, shared by every node process. Within a batch,
 * the cache entries of all its key locations are read in one request and each URL is resolved once.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { KEY_CACHE_ID_PREFIX, type NodeRepository } from '../../storage/node-repository.js';
import type { SafeFetchFailure } from '../../net/safe-fetch.js';
import { isTransientFetchFailure, publicFetchFailure } from '../../net/fetch-failure.js';
import { ConcurrencyLimit } from '../../domain/concurrency-limit.js';

export interface TextFetcher {
  fetchText(url: string): Promise<{ ok: true; text: string; contentType?: string | null } | { ok: false; reason: string; code?: SafeFetchFailure; status?: number }>;
}

const CACHE_MS = 24 * 60 * 60 * 1000;
export const ARMORED_KEY = /-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]*?-----END PGP PUBLIC KEY BLOCK-----/g;
const MAX_LOCATIONS = 3;
/** Key locations one batch fetches at most (cached ones are free), and at once. */
export const MAX_FETCHES_PER_BATCH = 20;
const FETCH_CONCURRENCY = 4;
/**
 * How long one batch may spend fetching keys: no fetch starts after it (the location is then
 * left for a later batch, as past MAX_FETCHES_PER_BATCH). With four fetches at a time, each up
 * to 5 s, a batch is answered within about 15 s however many locations never answer, under a
 * CouchDB replicator's 30 s request timeout.
 */
const FETCH_BUDGET_MS = 10_000;

const notFetchedInTime = (url: string): Resolved => ({ failure: `${url}: not fetched, the batch spent its ${FETCH_BUDGET_MS / 1000} s for fetching keys on other locations; it is fetched by a later batch`, transient: true });

/** `transient`: the location may give the key later (its server did not answer: isTransientFetchFailure). */
type Resolved = { keys: string[] } | { failure: string; transient: boolean };

/** `transient`: some location failed in a way that may pass (the keys found may then differ). */
export interface ResolvedKeys { keys: string[]; failures: string[]; transient: boolean }

/** Key locations remembered as not answering, at most (the oldest is forgotten first). */
const UNANSWERED_REMEMBERED = 1000;

/**
 * Key locations whose server did not answer (a transient failure), remembered for `forMs`: a
 * server that takes connections and never answers costs the fetch's whole timeout (5 s), and
 * without this every batch naming it paid that again, up to a replicator's batch of a thousand
 * documents held 25 s for five such locations (a replicator gives up at 30 s). A process-local
 * hint only: a miss fetches again, and another node process learns by itself.
 */
export class UnansweredLocations {
  private readonly until = new Map<string, { failure: string; until: number }>();

  constructor(private readonly forMs: number) {}

  failureOf(url: string): string | undefined {
    const entry = this.until.get(url);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.failure;
    this.until.delete(url);
    return undefined;
  }

  remember(url: string, failure: string): void {
    this.until.delete(url);
    if (this.until.size >= UNANSWERED_REMEMBERED) this.until.delete(this.until.keys().next().value as string);
    this.until.set(url, { failure, until: Date.now() + this.forMs });
  }
}

export class KeyResolver {
  private readonly unanswered: UnansweredLocations;

  /** `unansweredForMs`: how long a key location that did not answer is taken as still not answering (UnansweredLocations). */
  constructor(
    private readonly nodes: NodeRepository,
    private readonly fetcherFor: (allowPrivate: boolean) => TextFetcher,
    private readonly logger?: Logger,
    unansweredForMs = 30_000,
  ) {
    this.unanswered = new UnansweredLocations(unansweredForMs);
  }

  /** Armored keys found at the locations (a key server page holding the armored block is fine). */
  keysAt(locations: unknown, allowPrivate: boolean): Promise<ResolvedKeys> {
    return this.batch(allowPrivate).keysAt(locations);
  }

  /**
   * Keys for the documents of one batch: each URL is resolved once however many documents name
   * it, and `prefetch` reads the cache entries of every URL of the batch in one request.
   */
  batch(allowPrivate: boolean): KeyBatch {
    return new KeyBatch(this.nodes, this.fetcherFor(allowPrivate), this.logger, this.unanswered);
  }
}

const cacheIdOf = (url: string): string => `${KEY_CACHE_ID_PREFIX}${createHash('sha256').update(url).digest('hex')}`;

const urlsOf = (locations: unknown): string[] => (Array.isArray(locations) ? locations : []).filter((url): url is string => typeof url === 'string').slice(0, MAX_LOCATIONS);

export class KeyBatch {
  private readonly resolved = new Map<string, Promise<Resolved>>();
  private cached: Promise<Map<string, { keys: string[]; fetched: string }>> | undefined;
  private fetches = 0;
  /** When this batch's first fetch started (FETCH_BUDGET_MS counts from it). */
  private fetchStarted: number | undefined;
  private readonly fetching = new ConcurrencyLimit(FETCH_CONCURRENCY);

  constructor(
    private readonly nodes: NodeRepository,
    private readonly fetcher: TextFetcher,
    private readonly logger?: Logger,
    private readonly unanswered?: UnansweredLocations,
  ) {}

  /** Reads the cache entries of every key location of these documents' signatures at once. */
  prefetch(locationLists: unknown[]): void {
    const urls = [...new Set(locationLists.flatMap(urlsOf))];
    if (urls.length === 0) return;
    const ids = urls.map(cacheIdOf);
    this.cached = this.nodes.cachedKeys(ids).catch(() => new Map()); // an unreadable cache is a miss
  }

  async keysAt(locations: unknown): Promise<ResolvedKeys> {
    const keys: string[] = [];
    const failures: string[] = [];
    let transient = false;
    for (const url of urlsOf(locations)) {
      let resolved = this.resolved.get(url);
      if (!resolved) {
        resolved = this.resolve(url);
        this.resolved.set(url, resolved);
      }
      const outcome = await resolved;
      if ('keys' in outcome) keys.push(...outcome.keys);
      else {
        failures.push(outcome.failure);
        transient ||= outcome.transient;
      }
    }
    return { keys, failures, transient };
  }

  private budgetSpent(): boolean {
    return this.fetchStarted !== undefined && Date.now() - this.fetchStarted > FETCH_BUDGET_MS;
  }

  private async resolve(url: string): Promise<Resolved> {
    const cacheId = cacheIdOf(url);
    const prefetched = await this.cached;
    const cached = prefetched ? prefetched.get(cacheId) : await this.nodes.cachedKey(cacheId);
    if (cached && Date.now() - Date.parse(cached.fetched) < CACHE_MS) return { keys: cached.keys };
    // One request fetches a bounded number of key locations, a few at a time: a batch naming a
    // thousand distinct URLs must not make the node fetch a thousand (2.5 GB in an audit).
    // Transient: the next batch finds the keys fetched by this one cached.
    const unanswered = this.unanswered?.failureOf(url);
    if (unanswered !== undefined) return { failure: unanswered, transient: true };
    if (this.budgetSpent()) return notFetchedInTime(url);
    if (this.fetches >= MAX_FETCHES_PER_BATCH) return { failure: `${url}: not fetched, the batch names more than ${MAX_FETCHES_PER_BATCH} key locations the node has not cached; publish fewer signers per batch`, transient: true };
    this.fetches += 1;
    this.fetchStarted ??= Date.now();
    const fetched = await this.fetching.run(() => {
      // Waited for a free slot: the budget may be spent meanwhile.
      if (this.budgetSpent()) return Promise.resolve(undefined);
      return this.fetcher.fetchText(url);
    });
    if (fetched === undefined) return notFetchedInTime(url);
    if (!fetched.ok) {
      // The client is told what failed in its terms; the fetcher's detail goes to the log.
      this.logger?.warn({ url, detail: fetched.reason }, 'public key fetch failed');
      const failure = `${url}: ${publicFetchFailure(fetched)}`;
      const transient = isTransientFetchFailure(fetched);
      if (transient) this.unanswered?.remember(url, failure);
      return { failure, transient };
    }
    const found = fetched.text.match(ARMORED_KEY) ?? [];
    if (found.length === 0) return { failure: `${url}: no armored public key found`, transient: false };
    await this.nodes.cacheKey(cacheId, { url, keys: found, fetched: new Date().toISOString() });
    return { keys: found };
  }
}
