/**
 * A document arriving by distribution whose refusal may pass (its signer's key location does not
 * answer yet) is parked and tried again with backoff (src/services/distribute/parked-documents.ts),
 * not refused: neither replicator sends a document again once its batch is answered, so a key
 * server down for a minute lost the document at the destination for good. Through a real
 * replication (the source counts it written) and through the incoming database (documents sent
 * one by one, as with attachments); given up after INCOMING_RETRY_LIFETIME_MS; answered refused,
 * saying so, only when it cannot be parked either.
 * Runs on the suite's store: both ends on CouchDB with TEST_COUCHDB_URL, embedded otherwise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { postJson, startTestNode, addAccount, tempDir, basicAuth, type TestNode } from '../support/node.js';
import { scrape } from '../support/prometheus.js';
import { storeEnv, onCouchDB, prefixFor } from '../support/store.js';
import { startTestNetwork, publish, distribute, storedDocs, outbound, authOf, waitFor, type TestNetwork, type NetworkNode } from '../support/network.js';
import { generateNodeKeyPair, type NodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';

/** What the source's replicator would send beside the document (its own node's stamps). */
const STAMPS = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };

interface LogLine { msg: string; level?: number; stored?: number; parked?: number; doc_ID?: string; error?: string }

/** A loopback port nothing listens on (yet): bound, then released. */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A key server on `port` answering every request with the armored public key. */
async function keyServer(port: number, armored: string): Promise<http.Server> {
  const server = http.createServer((_request, response) => { response.writeHead(200, { 'content-type': 'text/plain' }); response.end(armored); });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe('documents whose refusal may pass are parked and tried again', function () {
  this.timeout(180000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  let pair: NodeKeyPair;

  before(async () => {
    net = await startTestNetwork({
      nodes: 2, topology: 'chain',
      // B verifies signatures and may fetch keys from loopback; its tries come fast and end after 8 s.
      nodeConfig: (index) => (index === 1 ? { policy: { verify_signatures: true, allow_private_fetch: true } } : {}),
      env: (dataDir) => ({ ...storeEnv(dataDir), INCOMING_RETRY_MS: '200', INCOMING_RETRY_LIFETIME_MS: '8000' }),
    });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
    pair = await generateNodeKeyPair('parked-signer', 'parked-signer@example.org');
  });
  after(async () => { await net.stop(); });

  const logs = (msg: string, from: number): LogLine[] => (net.logs[1] ?? []).slice(from).map((line) => JSON.parse(line) as LogLine).filter((line) => line.msg === msg);
  const metrics = async (): Promise<{ parkedNow: number; parked: number; rejected: number }> => {
    const scraped = await scrape(`${b.node.url}/metrics`, authOf(b.admin));
    return {
      parkedNow: scraped.value('lr_incoming_parked_documents'),
      parked: scraped.value('lr_incoming_documents_total', { outcome: 'parked' }),
      rejected: scraped.value('lr_incoming_documents_total', { outcome: 'rejected' }),
    };
  };
  const signedAt = (docId: string, keyLocation: string): Promise<Doc> => signEnvelope({ ...nsdlDocs(1)[0], doc_ID: docId }, pair.privateKeyArmored, undefined, [keyLocation]);

  it('through a replication: the source counts the document written, the destination parks it and stores it once its key location answers', async () => {
    const port = await freePort();
    // A publishes without verifying (its default): the signed document is stored there as it is.
    await publish(a, [await signedAt('parked-then-stored', `http://127.0.0.1:${port}/parked-signer`)]);
    const before = await metrics();
    const from = net.logs[1]?.length ?? 0;
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 1, docs_refused: 0 });
    expect((await storedDocs(b)).has('parked-then-stored')).to.equal(false);
    const parked = await metrics();
    expect(parked.parkedNow).to.equal(1);
    expect(parked.parked - before.parked).to.equal(1);
    expect(logs('incoming documents processed', from).some((line) => line.parked === 1)).to.equal(true);
    // Kept in its public form: not the source's node-private fields (its publishing account) nor its revision.
    const kept = await b.node.couch.use(b.node.names.incomingParked).get('parked-then-stored') as unknown as { doc: Record<string, unknown> };
    expect(kept.doc).to.include({ _id: 'parked-then-stored', doc_ID: 'parked-then-stored' });
    expect(kept.doc).to.not.have.any.keys('_rev', 'node_publisher_account', 'node_xml_checked');

    const server = await keyServer(port, pair.publicKeyArmored);
    try {
      await waitFor('the parked document to be stored', async () => (await storedDocs(b)).get('parked-then-stored'), 20000);
      await waitFor('nothing parked', async () => (await metrics()).parkedNow === 0, 10000);
      // At info (pino's 30), the node's default level: an operator sees the documents stored.
      expect(logs('parked documents tried again', from).some((line) => line.stored === 1 && line.level === 30)).to.equal(true);
      // The next run has nothing to send: the replication's checkpoint passed the document.
      expect((await distribute(a)).status).to.equal(200);
      expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 0, docs_refused: 0 });
    } finally {
      server.close();
    }
  });

  it('an older version arriving while a newer one is parked does not take its place: the newer one is stored', async () => {
    const port = await freePort();
    const version = async (keys: string[], updated: string): Promise<Doc> => ({
      ...(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: 'parked-versions', keys }, pair.privateKeyArmored, undefined, [`http://127.0.0.1:${port}/parked-signer`])),
      ...STAMPS, update_timestamp: updated, _id: 'parked-versions',
    });
    const newer = await version(['newer'], '2026-01-02T00:00:00.000000Z');
    const older = await version(['older'], '2026-01-01T00:00:00.000000Z');
    // Newer first, then the older one, as two peers of a ring may deliver them.
    for (const [doc, rev] of [[newer, '2-bbb'], [older, '1-aaa']] as const) {
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [{ ...doc, _rev: rev }], new_edits: false }, authOf(b.admin));
      expect(response.body).to.deep.equal([]);
    }
    const server = await keyServer(port, pair.publicKeyArmored);
    try {
      const stored = await waitFor('a version to be stored', async () => (await storedDocs(b)).get('parked-versions'), 20000);
      expect(stored.keys).to.deep.equal(['newer']);
    } finally {
      server.close();
    }
  });

  it('a copy of a document held, identical or older, is a duplicate or stale while its key location does not answer, not parked', async () => {
    const port = await freePort();
    const server = await keyServer(port, pair.publicKeyArmored);
    const version = async (keyLocation: string, keys: string[], updated: string): Promise<Doc> => ({
      ...(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: 'held-copy', keys }, pair.privateKeyArmored, undefined, [keyLocation])),
      ...STAMPS, update_timestamp: updated, _id: 'held-copy',
    });
    try {
      const held = await version(`http://127.0.0.1:${port}/held-signer`, ['held'], '2026-01-02T00:00:00.000000Z');
      expect((await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [{ ...held, _rev: '2-aaa' }], new_edits: false }, authOf(b.admin))).body).to.deep.equal([]);
      await waitFor('the document to be stored', async () => (await storedDocs(b)).get('held-copy'), 20000);
    } finally {
      server.close();
    }
    // The same content and an older version come back round a ring, signed naming a key location
    // that does not answer (port 9): what the node holds decides them, as without the key.
    const dead = 'http://127.0.0.1:9/held-signer';
    const before = await scrape(`${b.node.url}/metrics`, authOf(b.admin));
    const copies = [
      { ...(await version(dead, ['held'], '2026-01-02T00:00:00.000000Z')), _rev: '3-bbb' },
      { ...(await version(dead, ['older'], '2026-01-01T00:00:00.000000Z')), _rev: '4-ccc' },
    ];
    for (const copy of copies) expect((await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [copy], new_edits: false }, authOf(b.admin))).body).to.deep.equal([]);
    const counted = async (outcome: string): Promise<number> => (await scrape(`${b.node.url}/metrics`, authOf(b.admin))).value('lr_incoming_documents_total', { outcome }) - before.value('lr_incoming_documents_total', { outcome });
    await waitFor('both copies decided', async () => (await counted('duplicate')) + (await counted('stale')) === 2, 20000);
    expect(await counted('duplicate')).to.equal(1);
    expect(await counted('stale')).to.equal(1);
    expect(await counted('parked')).to.equal(0);
    expect((await metrics()).parkedNow).to.equal(0);
    expect(((await storedDocs(b)).get('held-copy') as Doc).keys).to.deep.equal(['held']);
  });

  it('a batch fetches at most 20 key locations it has not cached, each once; documents of the others are parked and stored at a later try', async () => {
    let requests = 0;
    const server = http.createServer((_request, response) => { requests += 1; response.writeHead(200, { 'content-type': 'text/plain' }); response.end(pair.publicKeyArmored); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // 25 signers' key locations (one server), each named by two documents.
      const docs = await Promise.all(Array.from({ length: 50 }, async (_, i) => ({
        ...(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: `capped-${i}` }, pair.privateKeyArmored, undefined, [`${base}/signer-${i % 25}`])),
        ...STAMPS, _id: `capped-${i}`, _rev: '1-abc',
      })));
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs, new_edits: false }, authOf(b.admin));
      expect(response.body).to.deep.equal([]);
      expect(requests, 'fetches of the batch').to.equal(20);
      await waitFor('every document to be stored', async () => { const held = await storedDocs(b); return docs.every((doc) => held.has(doc._id)); }, 20000);
      expect(requests, 'fetches in all').to.equal(25);
    } finally {
      server.close();
    }
  });

  it('through the incoming database: a document whose key location never answers is given up after the lifetime, logged and counted refused', async () => {
    const before = await metrics();
    const from = net.logs[1]?.length ?? 0;
    const doc = await signedAt('parked-given-up', 'http://127.0.0.1:9/parked-signer');
    // One document PUT with new_edits=false (how a replicator sends a document with attachments) lands in the incoming database.
    const response = await fetch(`${b.node.url}/incoming/parked-given-up?new_edits=false`, {
      method: 'PUT', headers: { ...authOf(b.admin), 'content-type': 'application/json' }, body: JSON.stringify({ ...doc, ...STAMPS, _id: 'parked-given-up', _rev: '1-abc' }),
    });
    expect(response.status).to.equal(201);
    await waitFor('the document to be parked', async () => (await metrics()).parked - before.parked === 1, 20000);
    const givenUp = await waitFor('the document to be given up', async () => logs('parked document given up', from).find((line) => line.doc_ID === 'parked-given-up'), 30000);
    expect(givenUp.error).to.match(/^given up after \d+ tries since \S+: rejected signature: /);
    const after = await metrics();
    expect(after.parkedNow).to.equal(0);
    expect(after.rejected - before.rejected).to.equal(1);
    expect((await storedDocs(b)).has('parked-given-up')).to.equal(false);
  });

  it('a document that cannot be parked either is answered refused, saying it may pass', async () => {
    // The parked database refuses every write (a validate_doc_update, which both stores apply to the node's admin writes too).
    const parkedDb = b.node.couch.use(b.node.names.incomingParked);
    const refusing = await parkedDb.insert({ _id: '_design/test-refuse-all', validate_doc_update: 'function () { throw({ forbidden: "not now" }); }' } as never);
    try {
      const doc = await signedAt('not-parked', 'http://127.0.0.1:9/parked-signer');
        const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [{ ...doc, ...STAMPS, _id: 'not-parked', _rev: '1-def' }], new_edits: false }, authOf(b.admin));
      expect(response.status).to.equal(201);
      const answer = response.body as unknown as { id: string; rev: string; error: string; reason: string }[];
      expect(answer.map(({ id, rev, error }) => ({ id, rev, error }))).to.deep.equal([{ id: 'not-parked', rev: '1-def', error: 'forbidden' }]);
      expect(answer[0]?.reason).to.match(/^rejected signature: .*\(this may pass, but the node could not keep the document to try it again: it is not sent again unless it is published again\)$/);
    } finally {
      await parkedDb.destroy('_design/test-refuse-all', refusing.rev);
    }
  });
});

// Several node processes on one CouchDB (README "Scaling"); the embedded store has one per DATA_DIR.
(onCouchDB ? describe : describe.skip)('parked documents with two node processes on one CouchDB', function () {
  this.timeout(180000);
  const OPS = { authorization: basicAuth('ops', 'ops-password-1') };
  let nodes: TestNode[] = [];

  before(async () => {
    const env = { DB_PREFIX: prefixFor(tempDir()), INCOMING_RETRY_MS: '200' };
    const nodeConfig = { policy: { verify_signatures: true, allow_private_fetch: true } };
    nodes = [await startTestNode({ env, nodeConfig }), await startTestNode({ env, nodeConfig })];
    await addAccount(nodes[0] as TestNode, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => { for (const node of nodes) await node.stop(); });

  it('each parked document is tried by one process at a time: stored once, and no process counts it a duplicate', async () => {
    const [first] = nodes as [TestNode, TestNode];
    const pair = await generateNodeKeyPair('two-process-signer', 'two-process-signer@example.org');
    const port = await freePort();
    const docs = await Promise.all(Array.from({ length: 40 }, async (_, i) => ({
      ...(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: `two-processes-${i}` }, pair.privateKeyArmored, undefined, [`http://127.0.0.1:${port}/signer`])),
      ...STAMPS, _id: `two-processes-${i}`, _rev: '1-abc',
    })));
    expect((await postJson(`${first.url}/incoming/_bulk_docs`, { docs, new_edits: false }, OPS)).body).to.deep.equal([]);
    const server = await keyServer(port, pair.publicKeyArmored);
    try {
      const counted = async (outcome: string): Promise<number> => {
        let sum = 0;
        for (const node of nodes) sum += (await scrape(`${node.url}/metrics`, OPS)).value('lr_incoming_documents_total', { outcome });
        return sum;
      };
      await waitFor('every document stored', async () => (await counted('stored')) === docs.length, 30000);
      // Every process has had time for more passes: none tries what the other stored.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await counted('duplicate')).to.equal(0);
      expect(await counted('stored')).to.equal(docs.length);
    } finally {
      server.close();
    }
  });
});
