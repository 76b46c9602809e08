/**
 * The cache of linked payloads (src/services/oai-pmh/linked-payloads.ts): its byte budget, its
 * lifetimes and its two fetchers, which an HTTP test cannot reach in reasonable time.
 */
import { expect } from 'chai';
import { LinkedPayloads } from '../../../src/services/oai-pmh/linked-payloads.js';
import type { SafeFetchResult } from '../../../src/net/safe-fetch.js';

function setUp(maxBytes = 1_000_000): { cache: LinkedPayloads; fetched: string[]; clock: { now: number }; answer: Map<string, SafeFetchResult> } {
  const fetched: string[] = [];
  const clock = { now: 0 };
  const answer = new Map<string, SafeFetchResult>();
  const fetcher = (allowPrivate: boolean) => ({
    fetchText: (url: string): Promise<SafeFetchResult> => {
      fetched.push(`${allowPrivate ? 'private' : 'public'} ${url}`);
      return Promise.resolve(answer.get(url) ?? { ok: true, text: `payload of ${url}`, contentType: 'application/xml', status: 200, url });
    },
  });
  const cache = new LinkedPayloads(fetcher, { maxBytes, ttlMs: 600_000, failureTtlMs: 30_000, now: () => clock.now });
  return { cache, fetched, clock, answer };
}

describe('linked payload cache', () => {
  it('serves a payload until its lifetime ends, a failure for its shorter one', async () => {
    const { cache, fetched, clock, answer } = setUp();
    answer.set('http://dead.example/x', { ok: false, code: 'timeout', reason: 'no complete answer within 5000 ms' });
    for (let i = 0; i < 3; i += 1) {
      expect((await cache.fetchText('http://a.example/x', false)).ok).to.equal(true);
      expect((await cache.fetchText('http://dead.example/x', false)).ok).to.equal(false);
    }
    expect(fetched).to.have.length(2);
    clock.now = 30_001;
    await cache.fetchText('http://a.example/x', false);
    await cache.fetchText('http://dead.example/x', false);
    expect(fetched).to.deep.equal(['public http://a.example/x', 'public http://dead.example/x', 'public http://dead.example/x']);
    clock.now = 600_001;
    await cache.fetchText('http://a.example/x', false);
    expect(fetched).to.have.length(4);
  });

  it('keeps what the fetcher refusing private addresses got apart from what the other got', async () => {
    const { cache, fetched } = setUp();
    await cache.fetchText('http://a.example/x', true);
    await cache.fetchText('http://a.example/x', false);
    await cache.fetchText('http://a.example/x', false);
    expect(fetched).to.deep.equal(['private http://a.example/x', 'public http://a.example/x']);
  });

  it('keeps within its byte budget, forgetting the least recently used first', async () => {
    const { cache, fetched, answer } = setUp(10_000);
    const big = (url: string): SafeFetchResult => ({ ok: true, text: 'x'.repeat(2000), contentType: null, status: 200, url });
    for (const name of ['a', 'b', 'c']) answer.set(`http://${name}.example/`, big(`http://${name}.example/`));
    answer.set('http://huge.example/', { ok: true, text: 'x'.repeat(10_000), contentType: null, status: 200, url: 'http://huge.example/' });
    await cache.fetchText('http://a.example/', false);
    await cache.fetchText('http://b.example/', false);
    await cache.fetchText('http://a.example/', false); // a is now used more recently than b
    await cache.fetchText('http://c.example/', false); // over the budget: b goes
    expect(cache.size).to.be.at.most(10_000);
    await cache.fetchText('http://a.example/', false);
    await cache.fetchText('http://b.example/', false);
    expect(fetched.filter((url) => url.includes('a.example'))).to.have.length(1);
    expect(fetched.filter((url) => url.includes('b.example'))).to.have.length(2);
    // Larger than the whole budget: served, never kept.
    await cache.fetchText('http://huge.example/', false);
    await cache.fetchText('http://huge.example/', false);
    expect(fetched.filter((url) => url.includes('huge.example'))).to.have.length(2);
    expect(cache.size).to.be.at.most(10_000);
  });
});
