/**
 * Documents a destination refuses by its rules (spec "Distribution", destination process) are
 * answered as refused in its /incoming `_bulk_docs` answer (`forbidden`, as CouchDB answers a
 * validate_doc_update refusal), so the source's replicator, CouchDB 3's or the embedded store's
 * PouchDB, counts them, the source reports them (`docs_refused`) and they are not sent again. A
 * refusal that may pass (a signer's key location that did not answer) is parked and tried again
 * instead (distribution-parked.test.ts).
 * Runs on the suite's store: both ends on CouchDB with TEST_COUCHDB_URL, embedded otherwise.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { expect } from 'chai';
import { nsdlDocs, replacementChain, type Doc } from '../support/documents.js';
import { postJson } from '../support/node.js';
import { startTestNetwork, publish, distribute, storedDocs, settled, outbound, authOf, waitFor, type TestNetwork, type NetworkNode } from '../support/network.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';

interface Processed { msg: string; rejected?: number; duplicates?: number; parked?: number; reasons?: { error: string; count: number; example_doc_ID: string }[] }

const UNSIGNED_UPDATE = 'rejected replacement: the original is unsigned: only its owner or a trusted super key may replace it';

/**
 * A 0.49 document of the sample replacement chain (0: an original, 1: a replacement, 2: a
 * deletion document), under the publishing account's own submitter name: the node proxy-signs it.
 */
function chainDoc(index: 0 | 1 | 2, fields: Doc): Doc {
  const { doc_ID: _id, replaces: _r, ...template } = replacementChain()[index] as Doc;
  void _id; void _r;
  return { ...template, identity: { submitter: 'publisher', submitter_type: 'agent' }, ...fields };
}

const logLines = (logs: string[] | undefined, from: number): Processed[] => (logs ?? []).slice(from).map((line) => JSON.parse(line) as Processed);

describe('documents a destination refuses', function () {
  this.timeout(180000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net.stop(); });

  const processed = (from: number): Processed[] => logLines(net.logs[1], from).filter((entry) => entry.msg === 'incoming documents processed');

  it('an unsigned document its owner updated: the destination keeps the earlier version, the source reports the update refused and does not send it again', async () => {
    // Not under the account's own submitter name: stored unsigned, not proxy-signed.
    const original: Doc = { ...nsdlDocs(1)[0], doc_ID: 'refused-unsigned-update', keys: ['first version'] };
    await publish(a, [original]);
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 1, docs_refused: 0 });
    await settled(b, 1);

    await publish(a, [{ ...original, keys: ['second version'] }]);
    const from = net.logs[1]?.length ?? 0;
    const answer = await distribute(a);
    // Refusing a document is the destination's decision, not a failed run.
    const entry = { outcome: 'ok', docs_written: 0, docs_refused: 1, docs_read: 1 };
    expect((answer.body.outbound as Record<string, Record<string, unknown>>)[b.node.publicUrl]).to.include(entry);
    expect(await outbound(a, b)).to.include(entry);
    expect((await storedDocs(b)).get('refused-unsigned-update')?.keys).to.deep.equal(['first version']);
    expect(processed(from).flatMap((line) => line.reasons ?? [])).to.deep.equal([{ error: UNSIGNED_UPDATE, count: 1, example_doc_ID: 'refused-unsigned-update' }]);

    // The replication's checkpoint has passed it: the next run does not send it again.
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 0, docs_refused: 0, docs_read: 0 });
  });

  it('a replacement and a deletion document of proxy-signed documents travel: the test network fetches keys from loopback', async () => {
    await publish(a, [chainDoc(0, { doc_ID: 'proxied-1' }), chainDoc(0, { doc_ID: 'proxied-2' })]);
    expect((await storedDocs(a)).get('proxied-1')?.digital_signature, 'proxy-signed').to.not.equal(undefined);
    expect((await distribute(a)).status).to.equal(200);
    await settled(b, 3);
    await publish(a, [chainDoc(1, { doc_ID: 'proxied-1v2', replaces: ['proxied-1'] }), chainDoc(2, { doc_ID: 'proxied-2del', replaces: ['proxied-2'] })]);
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 2, docs_refused: 0 });
    const held = await settled(b, 5);
    expect(held.get('proxied-1')).to.include({ doc_type: 'tombstone' });
    expect(held.get('proxied-2')).to.include({ doc_type: 'tombstone', deleted: true });
    expect(held.get('proxied-1v2')).to.include({ doc_type: 'resource_data' });
  });

  it('a chain of two replacements published between two runs: the destination replaces the first original too', async () => {
    // The middle replacement was a tombstone by the next run, and tombstones did not travel: the
    // first original stayed live at every destination, for good (an audit's finding, session 34).
    await publish(a, [chainDoc(0, { doc_ID: 'chain-v1' }), chainDoc(0, { doc_ID: 'chain-d1' })]);
    expect((await distribute(a)).status).to.equal(200);
    await waitFor('the originals at B', async () => { const held = await storedDocs(b); return held.has('chain-v1') && held.has('chain-d1'); });
    await publish(a, [chainDoc(1, { doc_ID: 'chain-v2', replaces: ['chain-v1'] }), chainDoc(1, { doc_ID: 'chain-d2', replaces: ['chain-d1'] })]);
    await publish(a, [chainDoc(1, { doc_ID: 'chain-v3', replaces: ['chain-v2'] }), chainDoc(2, { doc_ID: 'chain-d3', replaces: ['chain-d2'] })]);
    // The source keeps the middle replacement, as signed, in its tombstone; the first original's tombstone keeps nothing.
    const atA = await storedDocs(a);
    expect(atA.get('chain-v2')?.superseded_replacement).to.include({ doc_ID: 'chain-v2' }).and.to.not.have.any.keys('_id', '_rev', 'node_publisher_account');
    expect((atA.get('chain-v2')?.superseded_replacement as Doc).replaces).to.deep.equal(['chain-v1']);
    expect(atA.get('chain-v1')).to.not.have.property('superseded_replacement');
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_refused: 0 });
    const settledChains = async (): Promise<Map<string, Doc> | undefined> => {
      const held = await storedDocs(b);
      return ['chain-v1', 'chain-v2', 'chain-d1', 'chain-d2'].every((id) => held.get(id)?.doc_type === 'tombstone') && held.has('chain-v3') ? held : undefined;
    };
    const held = await waitFor('every superseded document tombstoned at B', settledChains);
    expect(held.get('chain-d1')).to.not.have.property('deleted');
    expect(held.get('chain-d2')).to.include({ doc_type: 'tombstone', deleted: true });
    expect(held.get('chain-v3')).to.include({ doc_type: 'resource_data' });
    for (const node of [a, b]) {
      const { body } = await postJson(`${node.node.url}/obtain`, { request_IDs: ['chain-v1', 'chain-v2', 'chain-v3', 'chain-d1', 'chain-d2'], by_doc_ID: true });
      expect((body.documents as { document: unknown }[]).map((entry) => entry.document !== null), node.node.url).to.deep.equal([false, false, true, false, false]);
    }
    // A run after it sends nothing again, and B holds what A holds.
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 0, docs_refused: 0 });
  });

  // A replacement is written before its original is tombstoned (two writes): a node that crashed
  // between them holds both live. The same replacement arriving again must not count as a
  // duplicate then, or the original would stay live for good (a mutation audit's gap, I7).
  it('a replacement held here beside its live original (a crash between the two writes): its copy arriving again tombstones the original', async () => {
    await publish(a, [chainDoc(0, { doc_ID: 'crash-gap-1' })]);
    expect((await distribute(a)).status).to.equal(200);
    await waitFor('the original at B', async () => (await storedDocs(b)).has('crash-gap-1'));
    await publish(a, [chainDoc(1, { doc_ID: 'crash-gap-1v2', replaces: ['crash-gap-1'] })]);
    // The crash, staged: B holds the replacement (as A holds it, under a revision of its own) and the original, live.
    const { _rev: _ignored, ...replacement } = (await storedDocs(a)).get('crash-gap-1v2') as Doc;
    void _ignored;
    await b.node.couch.use(b.node.names.resourceData).insert(replacement as never);
    expect((await storedDocs(b)).get('crash-gap-1')).to.include({ doc_type: 'resource_data' });
    expect((await distribute(a)).status).to.equal(200);
    const held = await waitFor('the original tombstoned at B', async () => {
      const docs = await storedDocs(b);
      return docs.get('crash-gap-1')?.doc_type === 'tombstone' ? docs : undefined;
    });
    expect(held.get('crash-gap-1v2')).to.include({ doc_type: 'resource_data', doc_ID: 'crash-gap-1v2' });
  });

  /** A document as a source's replicator sends it, with its own node's stamps. */
  const stamps = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
  const arrived = (doc: Doc, rev: string): Doc => ({ ...doc, ...stamps, _id: doc.doc_ID, _rev: rev });
  /** Sets fields of B's node_policy over its original one (no fields: the original). */
  const setPolicy = async (fields: Record<string, unknown>): Promise<unknown> => {
    policy ??= (await b.node.deps.nodes.nodeDescription())?.node_policy as Record<string, unknown>;
    const original = policy;
    return b.node.deps.nodes.reconcileNodeDoc('node_description', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), node_policy: { ...original, ...fields } }));
  };
  let policy: Record<string, unknown> | undefined;

  it('/incoming answers each document it refuses as forbidden, with the reason; one whose refusal may pass is parked, not refused', async () => {
    const pair = await generateNodeKeyPair('refusal-signer', 'refusal-signer@example.org');
    // Nothing listens on port 9 of loopback: the key location does not answer.
    const signed = (docId: string): Promise<Doc> => signEnvelope({ ...nsdlDocs(1)[0], doc_ID: docId }, pair.privateKeyArmored, undefined, ['http://127.0.0.1:9/refusal-signer']);
    const [fresh, keptHome] = nsdlDocs(3).slice(1).map((doc, i): Doc => ({ ...doc, doc_ID: `incoming-answer-${i}` })) as [Doc, Doc];
    await setPolicy({ verify_signatures: true, allow_private_fetch: true });
    try {
      const docs = [
        arrived(fresh, '1-aaa'),
        arrived({ ...keptHome, do_not_distribute: 'true' }, '2-bbb'),
        arrived(await signed('incoming-answer-unanswered-key'), '1-ccc'),
      ];
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs, new_edits: false }, authOf(b.admin));
      expect(response.status).to.equal(201);
      // The refusal that may pass (the key location did not answer) is parked, to be tried
      // again (distribution-parked.test.ts): the node took the document in.
      const answer = response.body as unknown as { id: string; rev: string; error: string; reason: string }[];
      expect(answer.map(({ id, rev, error }) => ({ id, rev, error }))).to.deep.equal([
        { id: 'incoming-answer-1', rev: '2-bbb', error: 'forbidden' },
      ]);
      expect(answer[0]?.reason).to.equal('do_not_distribute');
      const held = await storedDocs(b);
      expect(held.has('incoming-answer-0')).to.equal(true);
      expect(held.has('incoming-answer-unanswered-key')).to.equal(false);
    } finally {
      await setPolicy({});
    }
  });

  it('a replacement held beside its live original, its signer\'s key location not answering: the copy arriving is parked, not counted a duplicate (tombstoning the original needs the key\'s proof)', async () => {
    const pair = await generateNodeKeyPair('gap-signer', 'gap-signer@example.org');
    const unanswered = ['http://127.0.0.1:9/gap-signer'];
    const signer = { identity: { submitter: 'gap signer', submitter_type: 'agent' } };
    const original = await signEnvelope(chainDoc(0, { ...signer, doc_ID: 'key-gap-1' }), pair.privateKeyArmored, undefined, unanswered);
    const replacement = await signEnvelope(chainDoc(1, { ...signer, doc_ID: 'key-gap-1v2', replaces: ['key-gap-1'] }), pair.privateKeyArmored, undefined, unanswered);
    // The crash, staged: both held live, as stored before the key location went away.
    const resources = b.node.couch.use(b.node.names.resourceData);
    for (const doc of [original, replacement]) await resources.insert({ ...doc, ...stamps, _id: doc.doc_ID } as never);
    await setPolicy({ verify_signatures: true, allow_private_fetch: true });
    try {
      const from = net.logs[1]?.length ?? 0;
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [arrived(replacement, '1-ddd')], new_edits: false }, authOf(b.admin));
      expect(response.status).to.equal(201);
      expect(processed(from).map(({ duplicates, parked }) => ({ duplicates, parked }))).to.deep.equal([{ duplicates: 0, parked: 1 }]);
      expect((await storedDocs(b)).get('key-gap-1')).to.include({ doc_type: 'resource_data' });
    } finally {
      await setPolicy({});
    }
  });

  /** A server that takes connections and never answers, counting them. */
  async function silentServer(): Promise<{ base: string; connections: () => number; close: () => void }> {
    let connections = 0;
    const sockets: Socket[] = [];
    const server = createServer((socket) => { connections += 1; sockets.push(socket); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      connections: () => connections,
      close: () => { for (const socket of sockets) socket.destroy(); server.close(); },
    };
  }

  /** Runs `use` with B verifying signatures from loopback and a silent key server, both undone after. */
  async function withSilentKeyServer(use: (silent: Awaited<ReturnType<typeof silentServer>>) => Promise<void>): Promise<void> {
    const silent = await silentServer();
    await setPolicy({ verify_signatures: true, allow_private_fetch: true });
    try {
      await use(silent);
    } finally {
      await setPolicy({});
      silent.close();
    }
  }

  it('a key location whose server takes connections and never answers is asked once, not by every batch naming it', async () => {
    const pair = await generateNodeKeyPair('silent-signer', 'silent-signer@example.org');
    await withSilentKeyServer(async (silent) => {
      for (const docId of ['silent-key-1', 'silent-key-2']) {
        const doc = await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: docId }, pair.privateKeyArmored, undefined, [`${silent.base}/silent-signer`]);
        const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs: [arrived(doc, '1-abc')], new_edits: false }, authOf(b.admin));
        // Parked (the refusal may pass), so not among the refusals.
        expect(response.status).to.equal(201);
        expect(response.body).to.deep.equal([]);
      }
      // The first batch waited out the fetch's timeout; the second was told at once.
      expect(silent.connections()).to.equal(1);
    });
  });

  it('a batch naming many key locations that never answer fetches four at a time and starts none after 10 s: it is answered before a replicator gives up', async () => {
    const pair = await generateNodeKeyPair('silent-signers', 'silent-signers@example.org');
    await withSilentKeyServer(async (silent) => {
      const docs = await Promise.all(Array.from({ length: 12 }, async (_, i) => arrived(await signEnvelope({ ...nsdlDocs(1)[0], doc_ID: `silent-many-${i}` }, pair.privateKeyArmored, undefined, [`${silent.base}/signer-${i}`]), '1-abc')));
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs, new_edits: false }, authOf(b.admin));
      expect(response.status).to.equal(201);
      expect(response.body).to.deep.equal([]);
      // Two rounds of four (5 s each), then the budget is spent: the last four are left for a later try.
      expect(silent.connections()).to.equal(8);
    });
  });
});

describe('a destination that does not fetch keys from loopback', function () {
  this.timeout(180000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain', nodeConfig: (index) => (index === 1 ? { policy: { allow_private_fetch: false } } : {}) });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net.stop(); });

  const setPrivateFetch = (allowed: boolean): Promise<unknown> => b.node.deps.nodes.reconcileNodeDoc('node_description', (existing) => {
    const doc = existing as Record<string, unknown> & { _id: string };
    return { ...doc, node_policy: { ...(doc.node_policy as Record<string, unknown>), allow_private_fetch: allowed } };
  });

  it('refuses a replacement naming the key it could not fetch and why; the source does not send it again until it is published again', async () => {
    await publish(a, [chainDoc(0, { doc_ID: 'loopback-1' })]);
    expect((await distribute(a)).status).to.equal(200);
    await settled(b, 1);
    await publish(a, [chainDoc(1, { doc_ID: 'loopback-1v2', replaces: ['loopback-1'] })]);
    const from = net.logs[1]?.length ?? 0;
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 0, docs_refused: 1 });
    const reasons = logLines(net.logs[1], from).flatMap((line) => (line.msg === 'incoming documents processed' ? line.reasons ?? [] : []));
    const error = `rejected replacement: the signer's key could not be fetched from ${a.node.publicUrl}/pubkey: its host is not on a public address, and this node fetches only from public ones`;
    expect(reasons).to.deep.equal([{ error, count: 1, example_doc_ID: 'loopback-1v2' }]);

    // Allowing the fetch afterwards sends nothing: the replication's checkpoint has passed the document.
    await setPrivateFetch(true);
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_read: 0 });
    expect((await storedDocs(b)).has('loopback-1v2')).to.equal(false);
    // Published again (a new version of the replacement), it is sent, and replaces the original there.
    await publish(a, [chainDoc(1, { doc_ID: 'loopback-1v2', replaces: ['loopback-1'], keys: ['published again'] })]);
    expect((await distribute(a)).status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 1, docs_refused: 0 });
    const held = await settled(b, 2);
    expect(held.get('loopback-1')).to.include({ doc_type: 'tombstone' });
  });

  it('a replacement published there is refused naming the key location and why', async () => {
    await setPrivateFetch(false);
    const pair = await generateNodeKeyPair('loopback-signer', 'loopback-signer@example.org');
    const location = 'http://127.0.0.1:9/loopback-signer';
    const sign = (doc: Doc): Promise<Doc> => signEnvelope(doc, pair.privateKeyArmored, undefined, [location]);
    // Stored unverified (the node does not verify signatures by default); replacing needs the key.
    await publish(b, [await sign(chainDoc(0, { doc_ID: 'signed-here', identity: { submitter: 'Test Agent', submitter_type: 'agent' } }))]);
    const replacement = await sign(chainDoc(1, { doc_ID: 'signed-here-v2', replaces: ['signed-here'], identity: { submitter: 'Test Agent', submitter_type: 'agent' } }));
    const { body } = await postJson(`${b.node.url}/publish`, { documents: [replacement] }, authOf(b.publisher));
    expect(body.document_results).to.deep.equal([{
      doc_ID: 'signed-here-v2', OK: false,
      error: `rejected replacement: the signer's key could not be fetched from ${location}: its host is not on a public address, and this node fetches only from public ones`,
    }]);
  });
});
