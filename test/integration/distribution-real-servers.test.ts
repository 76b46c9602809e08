/**
 * Distribution between nodes on different real servers (spec "Distribution"; issue 11): a node on
 * the suite's CouchDB 3.5 and a node on a second CouchDB process the test stops mid-replication,
 * and the mixed pairs embedded → CouchDB and CouchDB → embedded: the node filter, do_not_distribute,
 * no duplicates, the skip rules of source step 4 (networks and gateways, each node's description
 * read from its own store), a destination filter description and an inbound refusal (a document
 * over the destination's max_document_size, counted refused by each replicator).
 *
 * Reason these run only when the suite runs on CouchDB (TEST_COUCHDB_URL): each pair needs a real
 * CouchDB on one side; the embedded → embedded case is the rest of the distribution suite. The
 * stopped destination is a CouchDB process of the fixture (test/support/couchdb-fixture.ts).
 */
import path from 'node:path';
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { getJson } from '../support/node.js';
import { onCouchDB, storeEnv, testCouchAdmin } from '../support/store.js';
import { startCouchInstance, type CouchInstance } from '../support/couchdb-fixture.js';
import { startTestNetwork, publish, distribute, storedDocs, settled, incomingCount, outbound, waitFor, type TestNetwork, type NetworkNode } from '../support/network.js';

const distinct = (count: number, tag: string): Doc[] => nsdlDocs(100).flatMap((doc, i) =>
  Array.from({ length: Math.ceil(count / 100) }, (_, j) => ({ ...doc, resource_locator: `http://example.org/${tag}/${i}/${j}` }))).slice(0, count);

const setNode = (entry: NetworkNode, fields: Record<string, unknown>): Promise<unknown> =>
  entry.node.deps.nodes.reconcileNodeDoc('node_description', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), ...fields }));

/** Every doc_ID once, each at revision 1 of its own: nothing lost, nothing stored twice. */
async function expectExactly(entry: NetworkNode, ids: string[]): Promise<void> {
  const docs = await storedDocs(entry);
  expect(docs.size).to.equal(ids.length);
  for (const id of ids) expect(docs.has(id), `${id} missing at ${entry.name}`).to.equal(true);
}

(onCouchDB ? describe : describe.skip)('distribution between real servers', function () {
  this.timeout(600000);

  describe('CouchDB → a second CouchDB stopped mid-replication', () => {
    // Enough that the replication runs past its first checkpoint (5 s) before the stop.
    const COUNT = 20000;
    let destinationCouch: CouchInstance;
    let net: TestNetwork;

    before(async () => {
      destinationCouch = await startCouchInstance();
      net = await startTestNetwork({
        nodes: 2, topology: 'chain',
        env: (dataDir) => path.basename(dataDir) === 'node2' ? { COUCHDB_URL: destinationCouch.url, DB_PREFIX: 'dest_' } : storeEnv(dataDir),
      });
    });
    after(async () => {
      await net?.stop();
      await destinationCouch?.stop();
    });

    it('resumes after the destination\'s CouchDB comes back: nothing lost or duplicated', async () => {
      const [a, b] = net.nodes as [NetworkNode, NetworkNode];
      const ids = await publish(a, distinct(COUNT, 'stopped'));
      const started = Date.now();
      const first = distribute(a);
      // Stop B's CouchDB while documents are arriving (some replicated, not all).
      // ...and after the replicator has saved a checkpoint there (documents are stored as they
      // arrive, before the first checkpoint: resuming needs one).
      const checkpointed = async (): Promise<boolean> => ((await b.node.couch.request({ db: b.node.names.incoming, path: '_local_docs' })) as { rows: unknown[] }).rows.length > 0;
      const arrived = await waitFor('the first replicated documents at the destination, and a checkpoint', async () => {
        const count = (await storedDocs(b)).size;
        return count > 0 && Date.now() - started > 6000 && await checkpointed() ? count : undefined;
      }, 120000);
      await destinationCouch.stop();
      expect(arrived, 'the replication finished before the stop: raise COUNT').to.be.below(COUNT);
      expect((await first).status).to.equal(200);
      expect(await outbound(a, b)).to.include({ outcome: 'failed' });

      await destinationCouch.start();
      await waitFor('the destination node to answer again', async () => (await getJson(`${b.node.url}/status`)).status === 200, 60000);
      const second = await distribute(a);
      expect(second.status).to.equal(200);
      const outcome = await outbound(a, b);
      expect(outcome, JSON.stringify(outcome)).to.include({ outcome: 'ok' });
      // Resumed from the replication checkpoint: this session read only what came after it.
      expect(Number(outcome.docs_read), JSON.stringify(outcome)).to.be.above(0).and.below(COUNT);
      await settled(b, COUNT, 240000);
      await expectExactly(b, ids);
    });
  });

  type Direction = 'embedded → CouchDB' | 'CouchDB → embedded';
  /** node1 → node2, one of them on its embedded store, the other on the suite's CouchDB. */
  const startPair = (direction: Direction, destinationConfig: Record<string, unknown> = {}): Promise<TestNetwork> => startTestNetwork({
    nodes: 2, topology: 'chain',
    // An empty COUCHDB_URL is unset: that node starts its embedded store.
    env: (dataDir) => (path.basename(dataDir) === 'node1') === (direction === 'embedded → CouchDB') ? { COUCHDB_URL: '' } : storeEnv(dataDir),
    nodeConfig: (index) => index === 1 ? destinationConfig : {},
  });
  const pairOf = (net: TestNetwork, direction: Direction): [NetworkNode, NetworkNode] => {
    const [a, b] = net.nodes as [NetworkNode, NetworkNode];
    expect(Boolean(a.node.embedded)).to.equal(direction === 'embedded → CouchDB');
    expect(Boolean(b.node.embedded)).to.equal(direction === 'CouchDB → embedded');
    return [a, b];
  };

  for (const direction of ['embedded → CouchDB', 'CouchDB → embedded'] as const) {
    describe(direction, () => {
      let net: TestNetwork;
      before(async () => { net = await startPair(direction); });
      after(async () => { await net?.stop(); });

      it('delivers live documents with the node filter, never do_not_distribute ones, and twice is once', async () => {
        const [a, b] = pairOf(net, direction);
        const ids = await publish(a, distinct(250, direction.replace(/\W+/g, '-')));
        // Stored directly: /publish refuses do_not_distribute.
        await a.node.couch.use(a.node.names.resourceData).insert({ ...nsdlDocs(1)[0], _id: 'kept-home', doc_ID: 'kept-home', doc_type: 'resource_data', do_not_distribute: 'true', node_timestamp: '2024-01-01T00:00:00.000000Z' } as never);
        expect((await distribute(a)).status).to.equal(200);
        expect(await outbound(a, b)).to.include({ outcome: 'ok' });
        await settled(b, ids.length, 120000);
        await expectExactly(b, ids);
        expect((await distribute(a)).status).to.equal(200);
        expect(await outbound(a, b)).to.include({ outcome: 'ok' });
        await settled(b, ids.length, 60000);
        await expectExactly(b, ids);
      });

      it('skips a destination in another network unless the connection and both nodes are gateways (source step 4)', async () => {
        const [a, b] = pairOf(net, direction);
        const connection = (await a.node.deps.nodes.connections()).find((doc) => doc.destination_node_url === b.node.publicUrl)?._id as string;
        const setConnection = (fields: Record<string, unknown>): Promise<unknown> => a.node.deps.nodes.reconcileNodeDoc(connection, (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), ...fields }));
        const [canary] = await publish(a, distinct(1, `${direction.replace(/\W+/g, '-')}-gateway`)) as [string];
        const expectSkipped = async (reason: RegExp): Promise<void> => {
          expect((await distribute(a)).body).to.include({ OK: true, error: '' });
          const entry = await outbound(a, b);
          expect(entry, JSON.stringify(entry)).to.include({ outcome: 'skipped' });
          expect(entry.reason).to.match(reason);
          expect((await storedDocs(b)).has(canary), 'the canary at the destination').to.equal(false);
          expect(await incomingCount(b)).to.equal(0);
        };
        // The destination's description is read through its GET /destination, from its own store.
        await setNode(b, { network_id: 'Another network' });
        await expectSkipped(/not a gateway connection and the networks differ/);
        await setConnection({ gateway_connection: true });
        await setNode(b, { gateway_node: true });
        await expectSkipped(/not a gateway node/);
        await setNode(a, { gateway_node: true });
        expect((await distribute(a)).body).to.include({ OK: true, error: '' });
        expect(await outbound(a, b)).to.include({ outcome: 'ok' });
        // Everything the source may distribute, the canary too, once: the do_not_distribute one stays home.
        const expected = [...(await storedDocs(a)).keys()].filter((id) => id !== 'kept-home');
        expect(expected).to.include(canary);
        await settled(b, expected.length, 120000);
        await expectExactly(b, expected);
      });
    });

    describe(`${direction}, the destination with a filter description and a smaller document size`, () => {
      // The destination's node filter keeps documents keyed "wanted" (the source replicates with
      // it, as the filter function); its policy refuses documents over LIMIT bytes on arrival.
      const LIMIT = 20000;
      let net: TestNetwork;
      before(async () => {
        net = await startPair(direction, {
          filter: { filter_name: 'wanted only', include_exclude: true, filter: [{ filter_key: 'keys', filter_value: '^wanted$' }] },
          policy: { max_document_size: LIMIT },
        });
      });
      after(async () => { await net?.stop(); });

      it('replicates only what the destination\'s filter keeps, and the destination refuses what its inbound checks refuse', async () => {
        const [a, b] = pairOf(net, direction);
        const tag = direction.replace(/\W+/g, '-');
        const keyed = (docs: Doc[], key: string): Doc[] => docs.map((doc) => ({ ...doc, keys: [...(doc.keys as string[]), key] }));
        const wanted = await publish(a, keyed(distinct(20, `${tag}-wanted`), 'wanted'));
        const unwanted = await publish(a, keyed(distinct(10, `${tag}-unwanted`), 'unwanted'));
        // Accepted by the source (its limit is the default 1 MiB), over the destination's LIMIT.
        const oversized = await publish(a, keyed(distinct(4, `${tag}-oversized`), 'wanted').map((doc) => ({ ...doc, resource_data: `${String(doc.resource_data)}<!--${'x'.repeat(2 * LIMIT)}-->` })));
        await a.node.couch.use(a.node.names.resourceData).insert({ ...nsdlDocs(1)[0], keys: ['wanted'], _id: 'kept-home-filtered', doc_ID: 'kept-home-filtered', doc_type: 'resource_data', do_not_distribute: 'true', node_timestamp: '2024-01-01T00:00:00.000000Z' } as never);

        expect((await distribute(a)).status).to.equal(200);
        // Sent: the wanted and the oversized ones (the filter passes both); refusing a document
        // is the destination's decision, not a replication failure: the source counts them refused.
        expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: wanted.length, docs_refused: oversized.length });
        await settled(b, wanted.length, 120000);
        await expectExactly(b, wanted);
        for (const id of [...unwanted, ...oversized, 'kept-home-filtered']) expect((await storedDocs(b)).has(id), id).to.equal(false);
        const refusals = (net.logs[1] ?? []).map((line) => JSON.parse(line) as { msg: string; doc_ID?: string; error?: string }).filter((entry) => entry.msg === 'incoming document not stored');
        expect(refusals.map((entry) => [entry.doc_ID, entry.error]).sort()).to.deep.equal(oversized.map((id) => [id, 'too large']).sort());
      });
    });
  }

  describe('the source node\'s own CouchDB password holds characters a URL would percent-encode', () => {
    // The replicator reads the source through this node's CouchDB credentials: in a header, not
    // the URL's userinfo, which CouchDB's replicator does not decode (an audit: HTTP 500,
    // replication_auth_error, with a password like this one).
    const user = `lr_special_${Date.now().toString(36)}`;
    const password = `Sx7$pa@ss:w%rd+ #${Date.now()}`;
    // Read when the tests run: on the embedded store this block is skipped, and there is no CouchDB admin.
    const admin = (): NonNullable<ReturnType<typeof testCouchAdmin>> => testCouchAdmin() as NonNullable<ReturnType<typeof testCouchAdmin>>;
    const adminUrl = (): string => `${admin().root}/_node/_local/_config/admins/${user}`;
    let net: TestNetwork;

    before(async () => {
      const made = await fetch(adminUrl(), { method: 'PUT', headers: admin().headers, body: JSON.stringify(password) });
      expect(made.status, 'a CouchDB admin for the source node').to.equal(200);
      // CouchDB hashes a new admin's password behind the config write: until then it refuses it.
      const own = { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
      await waitFor('the new CouchDB admin to sign in', async () => (await fetch(`${admin().root}/_session`, { headers: own })).status === 200, 10000);
      net = await startTestNetwork({
        nodes: 2, topology: 'chain',
        env: (dataDir) => path.basename(dataDir) === 'node1' ? { ...storeEnv(dataDir), COUCHDB_URL: admin().root, COUCHDB_USER: user, COUCHDB_PASSWORD: password } : storeEnv(dataDir),
      });
    });
    after(async () => {
      await net?.stop();
      await fetch(adminUrl(), { method: 'DELETE', headers: admin().headers });
    });

    it('distributes, and the password is in no answer or log line', async () => {
      const [a, b] = net.nodes as [NetworkNode, NetworkNode];
      const ids = await publish(a, distinct(20, 'own-password'));
      expect((await distribute(a)).status).to.equal(200);
      expect(await outbound(a, b)).to.include({ outcome: 'ok' });
      await settled(b, ids.length, 60000);
      await expectExactly(b, ids);
      expect(JSON.stringify((await getJson(`${a.node.url}/status`)).body)).to.not.include(password);
      expect(net.logs[0]?.join('')).to.not.include(password);
    });
  });
});
