/**
 * GET /status is a health check (issue 14, defect 8): it never waits for an index build, says
 * separately whether the views are current, and counts live documents only (issue 12: deletion
 * documents are not live).
 */
import { expect } from 'chai';
import { startTestNode, getJson, type TestNode } from '../support/node.js';
import type { Doc } from '../support/documents.js';

function rawDoc(i: number, extra: Doc = {}): Doc {
  const ts = `2024-06-01T00:00:00.${String(i).padStart(6, '0')}Z`;
  return { _id: `status-${i}`, doc_type: 'resource_data', payload_placement: 'inline', node_timestamp: ts, resource_locator: `http://example.org/s/${i}`, keys: ['k'], payload_schema: ['x'], ...extra };
}

describe('GET /status from cheap state', () => {
  let node: TestNode;
  before(async () => { node = await startTestNode(); });
  after(async () => node.stop());

  it('does not count deletion documents, tombstones or marked documents as live', async () => {
    await node.couch.use(node.names.resourceData).bulk({ docs: [
      rawDoc(1), rawDoc(2, { payload_placement: 'none' }), rawDoc(3, { doc_type: 'tombstone' }), rawDoc(4, { node_deleted: true }),
    ] });
    const { body } = await getJson(`${node.url}/status`);
    expect(body.doc_count).to.equal(1);
  });

  it('answers at once while 2,000 new documents are being indexed, and says the views are not current', async function () {
    this.timeout(180000);
    const db = node.couch.use(node.names.resourceData);
    const docs = Array.from({ length: 2000 }, (_, i) => rawDoc(100 + i));
    for (let i = 0; i < docs.length; i += 500) await db.bulk({ docs: docs.slice(i, i + 500) });
    const times: number[] = [];
    let first: Record<string, unknown> | undefined;
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      const { status, body } = await getJson(`${node.url}/status`);
      times.push(Math.round(performance.now() - started));
      expect(status).to.equal(200);
      first ??= body;
    }
    console.log(`      /status during the index build: ${times.join(', ')} ms`);
    // 100 ms is the goal on an idle machine; the bound here leaves room for a shared CI machine.
    expect(Math.max(...times)).to.be.below(1000);
    expect(first?.views_current).to.equal(false);
    expect(first?.doc_count_current).to.equal(false);
    expect((first?.store as { doc_count: number }).doc_count).to.be.at.least(2004);
    // Once the store has caught up, the count is exact and the views are current.
    const deadline = Date.now() + 150000;
    let body: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      await Promise.all(['obtain', 'slice', 'harvest/listidentifiers', 'slice?any_tags=k', 'obtain?request_ID=x', 'harvest/getrecord?by_resource_ID=true&request_ID=x', 'slice?identity=x', 'OAI-PMH?verb=ListMetadataFormats']
        .map((path) => fetch(`${node.url}/${path}`).then((response) => response.arrayBuffer())));
      body = (await getJson(`${node.url}/status`)).body;
      if (body.views_current === true && body.doc_count_current === true) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(body, JSON.stringify(body.stale_views)).to.include({ views_current: true, doc_count_current: true, doc_count: 2001 });
    expect(body.stale_views).to.deep.equal([]);
  });
});
