/**
 * Public keys of signers, fetched from the signature's key_location URLs (spec "Authentication",
 * 4) through the SSRF-guarded fetcher, and cached in the node database for a day so that a batch
 * of documents signed by one key costs one fetch, shared by every node process.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { SafeFetchFailure } from '../../net/safe-fetch.js';
import { publicFetchFailure } from '../../net/fetch-failure.js';

export interface TextFetcher {
  fetchText(url: string): Promise<{ ok: true; text: string; contentType?: string | null } | { ok: false; reason: string; code?: SafeFetchFailure; status?: number }>;
}

const CACHE_MS = 24 * 60 * 60 * 1000;
export const ARMORED_KEY = /-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]*?-----END PGP PUBLIC KEY BLOCK-----/g;
const MAX_LOCATIONS = 3;

export class KeyResolver {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly fetcherFor: (allowPrivate: boolean) => TextFetcher,
    private readonly logger?: Logger,
  ) {}

  /** Armored keys found at the locations (a key server page holding the armored block is fine). */
  async keysAt(locations: unknown, allowPrivate: boolean): Promise<{ keys: string[]; failures: string[] }> {
    const keys: string[] = [];
    const failures: string[] = [];
    const urls = (Array.isArray(locations) ? locations : []).filter((url): url is string => typeof url === 'string').slice(0, MAX_LOCATIONS);
    for (const url of urls) {
      const cacheId = `keycache:${createHash('sha256').update(url).digest('hex')}`;
      const cached = await this.nodes.cachedKey(cacheId);
      if (cached && Date.now() - Date.parse(cached.fetched) < CACHE_MS) {
        keys.push(...cached.keys);
        continue;
      }
      const fetched = await this.fetcherFor(allowPrivate).fetchText(url);
      if (!fetched.ok) {
        // The client is told what failed in its terms; the fetcher's detail goes to the log.
        this.logger?.warn({ url, detail: fetched.reason }, 'public key fetch failed');
        failures.push(`${url}: ${publicFetchFailure(fetched)}`);
        continue;
      }
      const found = fetched.text.match(ARMORED_KEY) ?? [];
      if (found.length === 0) {
        failures.push(`${url}: no armored public key found`);
        continue;
      }
      keys.push(...found);
      await this.nodes.cacheKey(cacheId, { url, keys: found, fetched: new Date().toISOString() });
    }
    return { keys, failures };
  }
}
