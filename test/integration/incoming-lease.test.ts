/**
 * Where several node processes serve one CouchDB, one at a time follows the incoming database
 * (src/services/distribute/follower-lease.ts): every arrival is checked once, by one process,
 * not once per process with all but one counting it a duplicate (the races audit). A process
 * that stops hands the feed over: the next arrivals are stored by another. CouchDB only: the
 * embedded store serves one node process.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startTestNode, addAccount, tempDir, basicAuth, type TestNode } from '../support/node.js';
import { scrape } from '../support/prometheus.js';
import { onCouchDB, prefixFor } from '../support/store.js';
import { waitFor } from '../support/network.js';
import { generateNodeKeyPair, type NodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';

/** What the source's replicator would send beside the document (its own node's stamps). */
const STAMPS = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
const OPS = { authorization: basicAuth('ops', 'ops-password-1') };

(onCouchDB ? describe : describe.skip)('the incoming database with two node processes on one CouchDB', function () {
  this.timeout(180000);
  let nodes: TestNode[] = [];
  let keys: http.Server;
  let pair: NodeKeyPair;
  let keyUrl: string;

  before(async () => {
    pair = await generateNodeKeyPair('incoming-lease-signer', 'incoming-lease-signer@example.org');
    keys = http.createServer((_request, response) => { response.writeHead(200, { 'content-type': 'text/plain' }); response.end(pair.publicKeyArmored); });
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
    keyUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}/signer`;
    // Verifying signatures (a key fetched, a signature checked) is the work done twice before.
    const env = { DB_PREFIX: prefixFor(tempDir()) };
    const nodeConfig = { policy: { verify_signatures: true, allow_private_fetch: true } };
    nodes = [await startTestNode({ env, nodeConfig }), await startTestNode({ env, nodeConfig })];
    await addAccount(nodes[0] as TestNode, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    keys.close();
  });

  const arrivals = (prefix: string, count: number): Promise<Doc[]> => Promise.all(Array.from({ length: count }, async (_, i) => ({
    ...(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: `${prefix}-${i}` }, pair.privateKeyArmored, undefined, [keyUrl])),
    ...STAMPS, _id: `${prefix}-${i}`, _rev: '1-abc',
  })));
  const counted = async (outcome: string, among: TestNode[] = nodes): Promise<number[]> =>
    Promise.all(among.map(async (node) => (await scrape(`${node.url}/metrics`, OPS)).value('lr_incoming_documents_total', { outcome })));
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  const putIncoming = async (node: TestNode, doc: Doc): Promise<void> => {
    const response = await fetch(`${node.url}/incoming/${encodeURIComponent(String(doc._id))}?new_edits=false`, {
      method: 'PUT', headers: { ...OPS, 'content-type': 'application/json' }, body: JSON.stringify(doc),
    });
    expect(response.status, await response.text()).to.equal(201);
  };

  it('each arrival is checked by one process: stored once, counted once, by the process holding the lease', async () => {
    const docs = await arrivals('lease-a', 40);
    // One at a time, as a replicator sends documents with attachments (a replicator's _bulk_docs
    // is checked by the process it reaches, without the incoming database), alternately through
    // each process, as behind a balancer.
    for (const [index, doc] of docs.entries()) await putIncoming(nodes[index % 2] as TestNode, doc);
    await waitFor('every document stored', async () => sum(await counted('stored')) === docs.length, 60000);
    // Every process has had time for more passes over the feed: none checks what another stored.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sum(await counted('duplicate'))).to.equal(0);
    const stored = await counted('stored');
    expect(stored.filter((count) => count > 0), `stored per process: ${stored.join(', ')}`).to.have.length(1);
  });

  it('a process that stops hands the feed over: the next arrivals are stored by the other', async () => {
    const stored = await counted('stored');
    const holder = stored.findIndex((count) => count > 0);
    const [stopping] = nodes.splice(holder, 1) as [TestNode];
    await stopping.stop();
    const [other] = nodes as [TestNode];
    const before = sum(await counted('stored'));
    const docs = await arrivals('lease-b', 10);
    for (const doc of docs) await putIncoming(other, doc);
    // The other process tries for the lease every 10 s; the stopped one released it.
    await waitFor('the arrivals stored by the remaining process', async () => sum(await counted('stored')) === before + docs.length, 30000);
  });
});
