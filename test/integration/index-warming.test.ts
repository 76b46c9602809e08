/**
 * Indexes kept current as documents arrive (issue 15, src/storage/index-warmer.ts): after a bulk
 * publish, every view of resource_data catches up with no access request sent, so the first
 * obtain, slice or harvest does not pay for the build. /status reads the index state without
 * building anything (stale reads and `_info`), so polling it proves the warmer did the work.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { onCouchDB } from '../support/store.js';
import pino from 'pino';
import { startBareStore, type BareStore } from '../support/bare-store.js';
import { connectCouch } from '../../src/storage/couch.js';
import { IndexWarmer } from '../../src/storage/index-warmer.js';

const AUTH = basicAuth('warm', 'warm-password-1');

async function publish(node: TestNode, count: number): Promise<void> {
  const docs = nsdlDocs(count);
  for (let i = 0; i < docs.length; i += 25) {
    const answer = await postJson(`${node.url}/publish`, { documents: docs.slice(i, i + 25) }, { authorization: AUTH });
    expect(answer.body.OK, JSON.stringify(answer.body).slice(0, 300)).to.equal(true);
  }
}

async function staleViews(node: TestNode): Promise<string[]> {
  const status = await getJson(`${node.url}/status`);
  return status.body.stale_views as string[];
}

describe('index warming: views caught up after a bulk publish, with no request', function () {
  this.timeout(120000);

  it('brings every view of resource_data up to date on its own', async () => {
    const node = await startTestNode();
    try {
      await addAccount(node, 'warm', 'warm-password-1');
      await publish(node, 100);
      let stale = await staleViews(node);
      const deadline = Date.now() + 60000;
      while (stale.length > 0 && Date.now() < deadline) {
        await delay(250);
        stale = await staleViews(node);
      }
      expect(stale, 'views still behind a minute after the publish').to.deep.equal([]);
      expect((await getJson(`${node.url}/status`)).body.views_current).to.equal(true);
    } finally {
      await node.stop();
    }
  });

  it('INDEX_WARMING=off leaves the indexes to the first request that needs them', async function () {
    // CouchDB 3 has its own background indexer (ken), which builds these indexes whatever the
    // node does: only the embedded store shows what the node's warmer adds.
    if (onCouchDB) this.skip();
    const node = await startTestNode({ env: { INDEX_WARMING: 'off' } });
    try {
      await addAccount(node, 'warm', 'warm-password-1');
      await publish(node, 100);
      await delay(3000);
      expect(await staleViews(node)).to.include.members(['harvest/by_node_timestamp', 'slice/by_tag']);
    } finally {
      await node.stop();
    }
  });

  it('refuses a setting that is not on or off, naming it', async () => {
    const { loadSettings } = await import('../../src/config/settings.js');
    expect(() => loadSettings({ INDEX_WARMING: 'yes' })).to.throw(/INDEX_WARMING: must be on or off/);
  });
});

describe('index warming: the half-minute rule counts from the first write the indexes missed', function () {
  this.timeout(60000);
  let store: BareStore;
  before(async () => {
    store = await startBareStore('warm-lag');
    expect((await store.call('PUT', '/docs')).status).to.equal(201);
    const map = 'function (doc) { emit(doc._id, null); }';
    expect((await store.call('PUT', '/docs/_design/d', { views: { v: { map } } })).status).to.equal(201);
  });
  after(async () => store.stop());

  it('waits maxLagMs after the first write of a burst, however long the node was idle before it', async () => {
    // Never quiet during the test: only the lag rule can start a pass after the first one.
    const maxLagMs = 1500;
    const warmer = new IndexWarmer(connectCouch({ url: store.url, user: store.user, password: store.password }), 'docs', [{ ddoc: 'd', views: ['v'] }], pino({ level: 'silent' }), { pollMs: 20, quietMs: 600_000, maxLagMs });
    warmer.start();
    try {
      while (warmer.completedPasses < 1) await delay(20);
      await delay(maxLagMs + 500);
      const written = Date.now();
      expect((await store.call('PUT', '/docs/one', { n: 1 })).status).to.equal(201);
      await delay(maxLagMs / 3);
      // Counted from the last pass, the lag had long run out: a pass started at this write.
      expect(warmer.completedPasses, 'a pass began beside the first write after an idle spell').to.equal(1);
      while (warmer.completedPasses < 2 && Date.now() - written < 10_000) await delay(20);
      expect(warmer.completedPasses, 'no pass once the writes had waited maxLagMs').to.equal(2);
      expect(Date.now() - written).to.be.at.least(maxLagMs);
    } finally {
      await warmer.stop();
    }
  });
});
