/**
 * A replication that fails after documents reached the destination: the source does not know how
 * many did (neither store's failed `_replicate` answer says), so its outbound entry leaves the
 * counts out rather than claim 0 were written. Runs on the suite's store (CouchDB 3's replicator
 * with TEST_COUCHDB_URL, the embedded store's PouchDB otherwise).
 */
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { getJson } from '../support/node.js';
import { startTestNetwork, publish, distribute, connectNodes, type TestNetwork, type NetworkNode } from '../support/network.js';
import { destinationPeer } from '../support/destination-peer.js';

describe('a distribution run whose replication fails midway', function () {
  this.timeout(180000);
  let net: TestNetwork;

  before(async () => { net = await startTestNetwork({ nodes: 1, topology: 'none' }); });
  after(async () => { await net.stop(); });

  it('reports the outcome failed with no counts, though the destination took a batch', async () => {
    const [a] = net.nodes as [NetworkNode];
    // Two batches of the replication (1,000 documents each): the peer takes the first, fails the second.
    const docs = nsdlDocs(100).flatMap((doc, i) => Array.from({ length: 15 }, (_, j): Doc => ({ ...doc, resource_locator: `http://example.org/failed-run/${i}/${j}` })));
    await publish(a, docs);
    const peer = await destinationPeer(a, 'fail-after-first');
    try {
      await connectNodes(a, { ...a, node: { ...a.node, publicUrl: peer.url } }, { credentials: false });
      const answer = await distribute(a);
      expect(answer.body).to.include({ OK: true, error: '' });
      expect(peer.written, 'documents the peer took before failing').to.be.above(0);
      const entry = ((await getJson(`${a.node.url}/status`)).body.outbound as Record<string, Record<string, unknown>>)[peer.url] ?? {};
      expect(entry, JSON.stringify(entry)).to.include({ outcome: 'failed' });
      expect(entry).to.not.have.any.keys('docs_written', 'docs_read', 'docs_refused');
      expect((answer.body.outbound as Record<string, unknown>)[peer.url]).to.deep.equal(entry);
    } finally {
      await peer.close();
    }
  });
});
