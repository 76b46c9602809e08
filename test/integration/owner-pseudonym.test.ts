/**
 * The owner of a published document is recorded by a keyed pseudonym of the account's name
 * (src/domain/ownership.ts), not the name: web accounts are named by their e-mail address, and
 * CouchDB replication copies the node-private field to every peer. Documents stored by earlier
 * versions, which hold the plain name, stay owned by it.
 */
import { expect } from 'chai';
import { addAccount, basicAuth, postJson, recordedOwner } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startTestNetwork, distribute, waitFor, type NetworkNode, type TestNetwork } from '../support/network.js';

const OWNER_FIELD = 'node_publisher_account';
const ADDRESS = 'ada.lovelace@example.org';
const ADA = { authorization: basicAuth(ADDRESS, 'ada-password-123') };
const OTHER = { authorization: basicAuth('grace@example.net', 'grace-password-1') };
/** Another account of the same submitter text: only the recorded owner tells them apart. */
const TWIN = { authorization: basicAuth('ada-twin', 'twin-password-12') };
const REPLACED = 'rejected replacement: this doc_ID has been replaced and cannot be published again';

type Result = { doc_ID: string; OK: boolean; error?: string };
const results = (body: Record<string, unknown>): Result[] => body.document_results as Result[];
const asAda = (doc: Doc, id: string, fields: Doc = {}): Doc => ({ ...doc, doc_ID: id, identity: { submitter: 'Ada', submitter_type: 'agent' }, ...fields });

describe('owners recorded by pseudonym', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  let pseudonym: string;
  const docs = nsdlDocs(20);
  const stored = async (id: string): Promise<Doc> => a.node.couch.use(a.node.names.resourceData).get(id) as unknown as Promise<Doc>;
  const publish = async (documents: Doc[], auth: { authorization: string }): Promise<Result[]> => results((await postJson(`${a.node.url}/publish`, { documents }, auth)).body);
  const remove = async (id: string, auth: { authorization: string }): Promise<Result[]> => results((await postJson(`${a.node.url}/delete`, { request_IDs: [id] }, auth)).body);
  /** A document as an earlier version stored it: the owner's plain name. */
  const storeLegacy = async (doc: Doc, id: string): Promise<void> => {
    const at = '2026-01-01T00:00:00.000000Z';
    await a.node.couch.use(a.node.names.resourceData).insert({
      ...asAda(doc, id), _id: id, publish_node: 'a', publishing_node: 'a', create_timestamp: at, update_timestamp: at, node_timestamp: at, [OWNER_FIELD]: ADDRESS,
    } as never);
  };

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain', nodeConfig: () => ({ services: { delete: { service_data: { delete_action: 'mark' } } } }) });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
    await addAccount(a.node, ADDRESS, 'ada-password-123', 'publisher', 'Ada');
    await addAccount(a.node, 'grace@example.net', 'grace-password-1', 'publisher', 'Grace');
    await addAccount(a.node, 'ada-twin', 'twin-password-12', 'publisher', 'Ada');
    pseudonym = await recordedOwner(a.node, ADDRESS);
  });
  after(async () => net?.stop());

  it('a document is stored with the pseudonym, and what its peer receives never holds the address', async () => {
    expect(await publish([asAda(docs[0] as Doc, 'pseud-1')], ADA)).to.deep.equal([{ doc_ID: 'pseud-1', OK: true }]);
    const source = await stored('pseud-1');
    expect(source[OWNER_FIELD]).to.equal(pseudonym);
    expect(pseudonym).to.match(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(source)).not.to.include(ADDRESS);
    // What b's incoming side is handed, as the replicator sent it (its _bulk_docs at /incoming, or
    // the incoming database's follower), before b drops node-private fields.
    const receiver = b.node.deps.distribution.receiver;
    const received: Doc[] = [];
    const receive = receiver.receive.bind(receiver);
    receiver.receive = async (arrived) => { received.push(...structuredClone(arrived)); return receive(arrived); };
    try {
      const run = await distribute(a);
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      const arrived = await waitFor('pseud-1 at b', async () => b.node.couch.use(b.node.names.resourceData).get('pseud-1').catch(() => undefined));
      expect(arrived).not.to.have.property(OWNER_FIELD);
    } finally {
      receiver.receive = receive;
    }
    expect(received.find((doc) => doc._id === 'pseud-1')?.[OWNER_FIELD]).to.equal(pseudonym);
    expect(JSON.stringify(received)).not.to.include(ADDRESS);
    expect(JSON.stringify(received).toLowerCase()).not.to.include('lovelace');
  });

  it('the owner replaces and deletes it; another account cannot, nor one of the same submitter', async () => {
    expect(await publish([asAda(docs[1] as Doc, 'pseud-2')], ADA)).to.deep.equal([{ doc_ID: 'pseud-2', OK: true }]);
    for (const auth of [OTHER, TWIN]) {
      expect((await publish([asAda(docs[2] as Doc, 'pseud-2')], auth))[0]?.OK).to.equal(false);
      expect(await remove('pseud-2', auth)).to.deep.equal([{ doc_ID: 'pseud-2', OK: false, error: 'only the owner of a document may delete it' }]);
    }
    expect(await publish([asAda(docs[2] as Doc, 'pseud-2')], ADA)).to.deep.equal([{ doc_ID: 'pseud-2', OK: true }]);
    expect((await stored('pseud-2')).resource_locator).to.equal((docs[2] as Doc).resource_locator);
    expect(await remove('pseud-2', ADA)).to.deep.equal([{ doc_ID: 'pseud-2', OK: true }]);
  });

  it('a document an earlier version stored with the plain name stays its owner\'s: replaced (now with the pseudonym) and deleted by it only', async () => {
    await storeLegacy(docs[3] as Doc, 'legacy-1');
    await storeLegacy(docs[4] as Doc, 'legacy-2');
    for (const auth of [OTHER, TWIN]) {
      expect((await publish([asAda(docs[5] as Doc, 'legacy-1')], auth))[0]?.OK).to.equal(false);
      expect(await remove('legacy-2', auth)).to.deep.equal([{ doc_ID: 'legacy-2', OK: false, error: 'only the owner of a document may delete it' }]);
    }
    expect(await publish([asAda(docs[5] as Doc, 'legacy-1')], ADA)).to.deep.equal([{ doc_ID: 'legacy-1', OK: true }]);
    expect(await stored('legacy-1')).to.include({ [OWNER_FIELD]: pseudonym, resource_locator: (docs[5] as Doc).resource_locator });
    expect(await remove('legacy-2', ADA)).to.deep.equal([{ doc_ID: 'legacy-2', OK: true }]);
  });

  it('an advance tombstone an earlier version recorded with the plain name still lets the owner\'s original be superseded', async () => {
    // A proxy-signed replacement (the node's key: `replaces` needs one) of an original not held yet.
    const replacement = asAda(docs[6] as Doc, 'pseud-r', { doc_version: '0.49.0', replaces: ['pseud-o'] });
    expect(await publish([replacement], ADA)).to.deep.equal([{ doc_ID: 'pseud-r', OK: true }]);
    const advance = await stored('pseud-o');
    expect(advance).to.include({ doc_type: 'pending_tombstone' });
    expect((advance.replaced_by as Doc).publisher_account).to.equal(pseudonym);
    // As an earlier version left it.
    await a.node.couch.use(a.node.names.resourceData).insert({ ...advance, replaced_by: { ...(advance.replaced_by as Doc), publisher_account: ADDRESS } } as never);
    expect(await publish([asAda(docs[7] as Doc, 'pseud-o', { doc_version: '0.49.0' })], ADA)).to.deep.equal([{ doc_ID: 'pseud-o', OK: false, error: REPLACED }]);
    expect(await stored('pseud-o')).to.include({ doc_type: 'tombstone' });
    expect(await publish([asAda(docs[8] as Doc, 'pseud-r2', { doc_version: '0.49.0', replaces: ['pseud-o2'] })], ADA)).to.deep.equal([{ doc_ID: 'pseud-r2', OK: true }]);
    // Another account of the same submitter publishing the original: not the replacement's owner, so
    // the original is stored live over the (legacy) advance tombstone.
    const second = await stored('pseud-o2');
    await a.node.couch.use(a.node.names.resourceData).insert({ ...second, replaced_by: { ...(second.replaced_by as Doc), publisher_account: ADDRESS } } as never);
    expect(await publish([asAda(docs[9] as Doc, 'pseud-o2', { doc_version: '0.49.0' })], TWIN)).to.deep.equal([{ doc_ID: 'pseud-o2', OK: true }]);
    expect(await stored('pseud-o2')).not.to.have.property('doc_type', 'tombstone');
  });
});
