/**
 * /status when the store stops answering (issue 14, defect 8): for up to 10 s after the store's
 * last answer it serves the counters it last read, at once; after that it answers 503 with
 * Retry-After within STORE_ANSWER_MS (3 s), in the JSON services' error form, so a health check
 * sees an unhealthy node instead of a request held for as long as the store hangs. Once the store
 * answers again, so does /status. The store stalls behind a proxy (test/support/store-proxy.ts),
 * right after the node status document has left memory (as after a write of this process): the
 * CI failure of session 5's second rehearsal, where that read held /status for 20 s.
 *
 * A store that answers the counters read late (as a three-member cluster's `GET /{db}` does) keeps
 * a current answer current for up to 80 ms, and never makes counters from before a write current.
 */
import { expect } from 'chai';
import { addAccount, basicAuth, getJson, postJson } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
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

  async function untilCurrent(): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 60000;
    for (;;) {
      const { body } = await timedStatus();
      if (body.doc_count_current === true && body.views_current === true) return body;
      if (Date.now() > deadline) expect.fail(`/status never current: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a counters read slower than 20 ms keeps current flags current on a quiet store; never current with the counters from before a write', async () => {
    const { node, proxy } = proxied;
    await addAccount(node, 'slow-status', 'slow-status-password-1');
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(3) }, { authorization: basicAuth('slow-status', 'slow-status-password-1') });
    expect(published.body.OK).to.equal(true);
    const count = (await untilCurrent()).doc_count;
    const databasePath = `/${node.names.resourceData}`;
    const counters = (method: string, path: string): boolean => method === 'GET' && path === databasePath;
    try {
      proxy.slow(40, counters);
      // The node waits up to 80 ms for counters after a current answer, 40 ms longer than they
      // take here. The node, the proxy and this client share one event loop in the test process,
      // where a pause of that length (a major GC late in the suite) is possible: one CI rehearsal
      // saw call 0 late. Such a call is rightly not current; without the extra wait none is.
      let current = 0;
      for (let call = 0; call < 8; call += 1) {
        const answer = await timedStatus();
        expect(answer.body.doc_count, `call ${call}`).to.equal(count);
        if (answer.body.doc_count_current === true && answer.body.views_current === true) current += 1;
        expect(answer.ms).to.be.below(1000);
      }
      expect(current, 'calls answered current of 8').to.be.at.least(6);
      // A write, then counters later than the node waits for: the last counters predate the write,
      // so nothing in this answer is current (a5b2dea's rule said "current, 3 documents" here).
      proxy.slow(0, counters);
      const more = await postJson(`${node.url}/publish`, { documents: nsdlDocs(5).slice(3) }, { authorization: basicAuth('slow-status', 'slow-status-password-1') });
      expect(more.body.OK).to.equal(true);
      proxy.slow(400, counters);
      const late = await timedStatus();
      expect(late.body, JSON.stringify(late.body)).to.include({ doc_count_current: false, views_current: false });
      expect(late.ms).to.be.below(400);
    } finally {
      proxy.slow(0, counters);
    }
    // The next test starts from a quiet store, its first counters read on time.
    expect((await untilCurrent()).doc_count).to.equal(5);
  });

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

describe('a view read that runs out of time (VIEW_WAIT_MS)', function () {
  this.timeout(120000);
  let proxied: ProxiedNode;
  before(async () => {
    proxied = await startProxiedNode({ VIEW_WAIT_MS: '1500' });
    const published = await (async () => {
      await addAccount(proxied.node, 'slow-view', 'slow-view-password-1');
      return postJson(`${proxied.node.url}/publish`, { documents: nsdlDocs(3) }, { authorization: basicAuth('slow-view', 'slow-view-password-1') });
    })();
    expect(published.body.OK).to.equal(true);
  });
  after(async () => proxied?.stop());

  const harvest = (): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> => getJson(`${proxied.node.url}/harvest/listrecords`, { signal: AbortSignal.timeout(20000) });

  it('says the index is still being built when only the view is slow (the store answers its database info)', async () => {
    const views = (method: string, path: string): boolean => path.includes('/_view/');
    proxied.proxy.slow(4000, views);
    try {
      const answer = await harvest();
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(String(answer.body.error)).to.match(/index for this request is still being built .*retry in 2 s/);
      expect(answer.headers.get('retry-after')).to.equal('2');
    } finally {
      proxied.proxy.slow(0, views);
    }
  });

  it('says the store has not answered when it answers nothing (stopped, hung), not that an index is being built', async () => {
    proxied.proxy.stall();
    try {
      const answer = await harvest();
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(String(answer.body.error)).to.match(/^the store has not answered within 1\.5 s/);
      expect(Number(answer.headers.get('retry-after'))).to.equal(10);
    } finally {
      proxied.proxy.release();
    }
    expect((await harvest()).status).to.equal(200);
  });
});
