/**
 * Documents a destination refuses by its rules (spec "Distribution", destination process) are
 * answered as refused in its /incoming `_bulk_docs` answer (`forbidden`, as CouchDB answers a
 * validate_doc_update refusal), so the source's replicator, CouchDB 3's or the embedded store's
 * PouchDB, counts them, the source reports them (`docs_refused`) and they are not sent again. A
 * refusal that may pass (a signer's key location that did not answer) is answered as before.
 * Runs on the suite's store: both ends on CouchDB with TEST_COUCHDB_URL, embedded otherwise.
 */
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { postJson } from '../support/node.js';
import { startTestNetwork, publish, distribute, storedDocs, settled, outbound, authOf, type TestNetwork, type NetworkNode } from '../support/network.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';

interface Processed { msg: string; rejected?: number; reasons?: { error: string; count: number; example_doc_ID: string }[] }

const UNSIGNED_UPDATE = 'rejected replacement: the original is unsigned: only its owner or a trusted super key may replace it';

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

  const processed = (from: number): Processed[] => (net.logs[1] ?? []).slice(from)
    .map((line) => JSON.parse(line) as Processed).filter((entry) => entry.msg === 'incoming documents processed');

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

  it('/incoming answers each document its rules refuse as forbidden, with the reason, and one refused for a reason that may pass as before', async () => {
    const pair = await generateNodeKeyPair('refusal-signer', 'refusal-signer@example.org');
    // Nothing listens on port 9 of loopback: the key location does not answer.
    const signed = (docId: string): Promise<Doc> => signEnvelope({ ...nsdlDocs(1)[0], doc_ID: docId }, pair.privateKeyArmored, undefined, ['http://127.0.0.1:9/refusal-signer']);
    const stamps = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
    const arrived = (doc: Doc, rev: string): Doc => ({ ...doc, ...stamps, _id: doc.doc_ID, _rev: rev });
    const [fresh, keptHome] = nsdlDocs(3).slice(1).map((doc, i): Doc => ({ ...doc, doc_ID: `incoming-answer-${i}` })) as [Doc, Doc];
    const policy = (await b.node.deps.nodes.nodeDescription())?.node_policy as Record<string, unknown>;
    const setPolicy = (fields: Record<string, unknown>): Promise<unknown> => b.node.deps.nodes.reconcileNodeDoc('node_description', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), node_policy: { ...policy, ...fields } }));
    await setPolicy({ verify_signatures: true, allow_private_fetch: true });
    try {
      const docs = [
        arrived(fresh, '1-aaa'),
        arrived({ ...keptHome, do_not_distribute: 'true' }, '2-bbb'),
        arrived(await signed('incoming-answer-unanswered-key'), '1-ccc'),
      ];
      const response = await postJson(`${b.node.url}/incoming/_bulk_docs`, { docs, new_edits: false }, authOf(b.admin));
      expect(response.status).to.equal(201);
      expect(response.body).to.deep.equal([{ id: 'incoming-answer-1', rev: '2-bbb', error: 'forbidden', reason: 'do_not_distribute' }]);
      const held = await storedDocs(b);
      expect(held.has('incoming-answer-0')).to.equal(true);
      expect(held.has('incoming-answer-unanswered-key')).to.equal(false);
    } finally {
      await setPolicy({});
    }
  });
});
