/**
 * /status when the store stops answering (issue 14, defect 8): for up to 10 s after the store's
 * last answer it serves the counters it last read, at once; after that it answers 503 with
 * Retry-After within STORE_ANSWER_MS (3 s), in the JSON services' error form, so a health check
 * sees an unhealthy node instead of a request held for as long as the store hangs. Once the store
 * answers again, so does /status. The store stalls behind a proxy (test/support/store-proxy.ts),
 * right after the node status document has left memory (as after a write of this process): the
 * CI failure of session 5's second rehearsal, where that read held /status for 20 s.
 */
import { expect } from 'chai';
import { getJson } from '../support/node.js';
import { NODE_STATUS_ID } from '../../src/storage/node-repository.js';
import { startProxiedNode, type ProxiedNode } from '../support/store-proxy.js';

describe('/status while the store does not answer', function () {
  this.timeout(120000);
  let proxied: ProxiedNode;
  before(async () => {
    proxied = await startProxiedNode();
  });
  after(async () => proxied?.stop());

  async function timedStatus(): Promise<{ status: number; body: Record<string, unknown>; headers: Headers; ms: number }> {
    const started = Date.now();
    const answer = await getJson(`${proxied.node.url}/status`, { signal: AbortSignal.timeout(20000) });
    return { ...answer, ms: Date.now() - started };
  }

  it('serves the last counters for 10 s, then answers 503 with Retry-After within 3 s, and recovers with the store', async () => {
    const before = await timedStatus();
    expect(before.status).to.equal(200);
    const lastAnswer = Date.now();
    // As after a write of this process (a distribution recording its outcome): the node status
    // document is no longer in memory, so this call must read it from the stalled store.
    for (const feed of proxied.node.deps.followed) feed.changed(NODE_STATUS_ID);
    proxied.proxy.stall();

    const early = await timedStatus();
    expect(early.status, JSON.stringify(early.body)).to.equal(200);
    expect(early.ms).to.be.below(1000);
    expect((early.body.store as { doc_count: unknown }).doc_count).to.equal((before.body.store as { doc_count: unknown }).doc_count);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastAnswer + 10500 - Date.now())));
    const late = await timedStatus();
    expect(late.status, JSON.stringify(late.body)).to.equal(503);
    expect(late.body.OK).to.equal(false);
    expect(String(late.body.error)).to.match(/the store has not answered within 3 s/);
    expect(Number(late.headers.get('retry-after'))).to.be.greaterThan(0);
    // 3 s for the store, and some slack for a loaded machine: never the 20 s the client would wait.
    expect(late.ms).to.be.within(2500, 6000);

    proxied.proxy.release();
    const after = await timedStatus();
    expect(after.status, JSON.stringify(after.body)).to.equal(200);
  });
});
