/**
 * Publishing paced by the view indexes (PUBLISH_MAX_INDEX_LAG, src/storage/index-pacer.ts): a
 * publish request that stored documents is answered only once every index of resource_data
 * trails the database by no more than the limit, so the reads after a bulk publish find little to
 * wait for. The lag is read
 * here from the store itself (`_info` of each design doc against the database's update_seq), not
 * through the node's own code.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { onCouchDB } from '../support/store.js';
import { loadSettings } from '../../src/config/settings.js';

const AUTH = basicAuth('paced', 'paced-password-1');
const LIMIT = 100;
const BATCH = 250;
const DESIGN_DOCS = ['harvest', 'oai-pmh', 'slice'];

/** How many changes the least advanced design doc's index has still to process, as the store says. */
async function storeLag(node: TestNode): Promise<number> {
  const db = node.names.resourceData;
  const [info, ...indexes] = await Promise.all([
    node.couch.request({ db }) as Promise<{ update_seq: unknown }>,
    ...DESIGN_DOCS.map((ddoc) => node.couch.request({ db, path: `_design/${ddoc}/_info` }) as Promise<{ view_index: { update_seq: unknown; updates_pending?: { total: number } } }>),
  ]);
  const count = (seq: unknown): number => Number.parseInt(String(seq), 10);
  return Math.max(...indexes.map((index) => index.view_index.updates_pending?.total ?? count(info.update_seq) - count(index.view_index.update_seq)));
}

/**
 * Publishes `batches` batches of distinct documents one after another: the store's index lag
 * right after each answer, and the doc_IDs given.
 */
async function publishAndMeasure(node: TestNode, batches: number, size = BATCH): Promise<{ lags: number[]; ids: string[] }> {
  const corpus = nsdlDocs(100);
  const docs = Array.from({ length: batches }, (_, batch) => Array.from({ length: size }, (_, i) => ({ ...corpus[i % corpus.length], resource_locator: `http://example.org/paced/${batch}/${i}` })));
  const lags: number[] = [];
  const ids: string[] = [];
  for (const documents of docs) {
    const answer = await postJson(`${node.url}/publish`, { documents }, { authorization: AUTH });
    expect(answer.body.OK, JSON.stringify(answer.body).slice(0, 300)).to.equal(true);
    const results = answer.body.document_results as { OK: boolean; doc_ID: string }[];
    expect(results.filter((result) => result.OK)).to.have.length(size);
    ids.push(...results.map((result) => result.doc_ID));
    lags.push(await storeLag(node));
  }
  return { lags, ids };
}

function metric(text: string, name: string): number {
  return text.split('\n').filter((line) => line.startsWith(name)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('publishing paced by the view indexes (PUBLISH_MAX_INDEX_LAG)', function () {
  this.timeout(180000);

  it('answers each publish only when every index is at most the limit behind, batches larger than the limit too', async () => {
    const node = await startTestNode({ env: { PUBLISH_MAX_INDEX_LAG: String(LIMIT), MONITORING_PORT: '0' } });
    try {
      await addAccount(node, 'paced', 'paced-password-1');
      const { lags, ids } = await publishAndMeasure(node, 6);
      expect(Math.max(...lags), `lags after each publish: ${lags.join(', ')}`).to.be.at.most(LIMIT);
      // Held, never refused: the last document published is served.
      const obtained = await getJson(`${node.url}/obtain?by_doc_ID=T&request_ID=${encodeURIComponent(String(ids.at(-1)))}`);
      expect((obtained.body.documents as { document: unknown[] | null }[])[0]?.document).to.have.length(1);
      const metrics = await (await fetch(`${node.monitoringUrl}/metrics`)).text();
      expect(metric(metrics, 'lr_publish_paced_total{outcome="caught_up"}') + metric(metrics, 'lr_publish_paced_total{outcome="current"}')).to.equal(6);
      // A batch whose every document is refused stored nothing, and is not held.
      const refused = await postJson(`${node.url}/publish`, { documents: [{ doc_type: 'resource_data' }] }, { authorization: AUTH });
      expect((refused.body.document_results as { OK: boolean }[])[0]?.OK).to.equal(false);
      const after = await (await fetch(`${node.monitoringUrl}/metrics`)).text();
      expect(metric(after, 'lr_publish_paced_total')).to.equal(6);
      expect(metric(metrics, 'lr_publish_paced_total{outcome="gave_up"}')).to.equal(0);
    } finally {
      await node.stop();
    }
  });

  it('a limit of 20,000 or more is a backstop: publishes are answered at the store\'s speed until the indexes trail by more, then held until they catch up', async () => {
    // 20,000 is where a limit becomes a backstop (src/deps.ts): passes keep the warmer's quiet rule.
    const node = await startTestNode({ env: { PUBLISH_MAX_INDEX_LAG: '20000', VIEW_WAIT_MS: '170000', MONITORING_PORT: '0' } });
    try {
      await addAccount(node, 'paced', 'paced-password-1');
      const { lags } = await publishAndMeasure(node, 22, 1000);
      expect(Math.max(...lags), `lags after each publish: ${lags.join(', ')}`).to.be.at.most(20000);
      // Once held, the rest of the load is paced to PUBLISH_CATCH_UP_INDEX_LAG (200 by default):
      // it ends with the indexes nearly current, not up to 20,000 behind.
      expect(lags.at(-1), `lags after each publish: ${lags.join(', ')}`).to.be.at.most(200);
      const metrics = await (await fetch(`${node.monitoringUrl}/metrics`)).text();
      const held = metric(metrics, 'lr_publish_paced_total{outcome="caught_up"}');
      const current = metric(metrics, 'lr_publish_paced_total{outcome="current"}');
      expect({ held: held > 0, answered: held + current }).to.deep.equal({ held: true, answered: 22 });
    } finally {
      await node.stop();
    }
  });

  it('with the default settings publishing is checked against the backstop (20,000)', async () => {
    const node = await startTestNode({ env: { MONITORING_PORT: '0' } });
    try {
      await addAccount(node, 'paced', 'paced-password-1');
      await publishAndMeasure(node, 1);
      const metrics = await (await fetch(`${node.monitoringUrl}/metrics`)).text();
      expect(metric(metrics, 'lr_publish_paced_total{outcome="current"}')).to.equal(1);
    } finally {
      await node.stop();
    }
  });

  it('without it, a run of quick publishes leaves the indexes of the embedded store behind (what the limit prevents)', async function () {
    // CouchDB 3's own background indexer (ken) may keep up with six small batches whatever the node does.
    if (onCouchDB) this.skip();
    const node = await startTestNode({ env: { PUBLISH_MAX_INDEX_LAG: 'off' } });
    try {
      await addAccount(node, 'paced', 'paced-password-1');
      const { lags } = await publishAndMeasure(node, 6);
      expect(Math.max(...lags), `lags after each publish: ${lags.join(', ')}`).to.be.above(LIMIT);
    } finally {
      await node.stop();
    }
  });

  it('answers a held publish at once when the node stops (its documents are stored), and stops without waiting for the client\'s keep-alive connection', async function () {
    // Nothing builds the embedded store's indexes once the warmer is stopped, so the answer stays
    // held; CouchDB's own background indexer (ken) would catch up by itself.
    if (onCouchDB) this.skip();
    const node = await startTestNode({ env: { PUBLISH_MAX_INDEX_LAG: String(LIMIT), VIEW_WAIT_MS: '60000' } });
    let stopped = false;
    try {
      await addAccount(node, 'paced', 'paced-password-1');
      await node.deps.warmer.stop();
      const corpus = nsdlDocs(100);
      const documents = Array.from({ length: BATCH }, (_, i) => ({ ...corpus[i % corpus.length], resource_locator: `http://example.org/held/${i}` }));
      const answer = postJson(`${node.url}/publish`, { documents }, { authorization: AUTH });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await storeLag(node), 'the publish should be held with the indexes behind').to.be.above(LIMIT);
      const stopAt = Date.now();
      const stopping = node.stop();
      stopped = true;
      const { status, body } = await answer;
      const answeredAfter = Date.now() - stopAt;
      expect(status).to.equal(200);
      expect((body.document_results as { OK: boolean }[]).filter((result) => result.OK)).to.have.length(BATCH);
      await stopping;
      // Released at once, and the stop waits neither for the indexes nor for the client's
      // keep-alive connection (the server gives requests in flight 10 s).
      expect(answeredAfter).to.be.below(2000);
      expect(Date.now() - stopAt).to.be.below(5000);
    } finally {
      if (!stopped) await node.stop();
    }
  });

  it('refuses a limit below 100, a word other than off, and a limit without the index warmer, naming the setting', () => {
    expect(loadSettings({ PUBLISH_MAX_INDEX_LAG: 'off' }).publishMaxIndexLag).to.equal(undefined);
    // By default a backstop of 20,000, with the index warmer on (its default); off without it.
    expect(loadSettings({}).publishMaxIndexLag).to.equal(20000);
    expect(loadSettings({ INDEX_WARMING: 'off' }).publishMaxIndexLag).to.equal(undefined);
    expect(loadSettings({ PUBLISH_MAX_INDEX_LAG: '2000' }).publishMaxIndexLag).to.equal(2000);
    expect(() => loadSettings({ PUBLISH_MAX_INDEX_LAG: '50' })).to.throw(/PUBLISH_MAX_INDEX_LAG: must be a whole number of documents, at least 100, or off/);
    expect(() => loadSettings({ PUBLISH_MAX_INDEX_LAG: 'on' })).to.throw(/PUBLISH_MAX_INDEX_LAG: must be/);
    expect(() => loadSettings({ PUBLISH_MAX_INDEX_LAG: '1000', INDEX_WARMING: 'off' })).to.throw(/PUBLISH_MAX_INDEX_LAG: needs INDEX_WARMING=on/);
  });

  it('paces the rest of a bulk load that met the backstop to PUBLISH_CATCH_UP_INDEX_LAG: 200 by default, off, or a number below the limit', () => {
    expect(loadSettings({}).publishCatchUpIndexLag).to.equal(200);
    expect(loadSettings({ PUBLISH_CATCH_UP_INDEX_LAG: 'off' }).publishCatchUpIndexLag).to.equal(undefined);
    expect(loadSettings({ PUBLISH_CATCH_UP_INDEX_LAG: '0' }).publishCatchUpIndexLag).to.equal(0);
    expect(loadSettings({ INDEX_WARMING: 'off' }).publishCatchUpIndexLag).to.equal(undefined);
    expect(loadSettings({ PUBLISH_MAX_INDEX_LAG: 'off' }).publishCatchUpIndexLag).to.equal(undefined);
    expect(loadSettings({ PUBLISH_MAX_INDEX_LAG: '150' }).publishCatchUpIndexLag, 'no default above the limit').to.equal(undefined);
    expect(() => loadSettings({ PUBLISH_CATCH_UP_INDEX_LAG: '20000' })).to.throw(/PUBLISH_CATCH_UP_INDEX_LAG: must be below PUBLISH_MAX_INDEX_LAG \(20000\)/);
    expect(() => loadSettings({ PUBLISH_CATCH_UP_INDEX_LAG: '100', PUBLISH_MAX_INDEX_LAG: 'off' })).to.throw(/PUBLISH_CATCH_UP_INDEX_LAG: needs PUBLISH_MAX_INDEX_LAG/);
    expect(() => loadSettings({ PUBLISH_CATCH_UP_INDEX_LAG: 'soon' })).to.throw(/PUBLISH_CATCH_UP_INDEX_LAG: must be a whole number of documents, or off/);
  });
});
