/**
 * Basic Delete `delete` and `purge` on a node whose deleted_data_policy is `persistent` (spec
 * "Basic Delete": "Deletion MUST be consistent with the resource data persistence policy";
 * OAI-PMH 2.0 §2.5.1: such a repository "must ... consistently return the status of a record as
 * deleted over time"). The document was removed from the store, so the record left both harvests
 * while Identify said `persistent`; it now leaves a stub, marked deleted (src/domain/deletion-stub.ts).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, currentStatus, recordedOwner, type TestNode } from '../support/node.js';
import { keyServer, nsdlDocs, replacementChain, type Doc } from '../support/documents.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';
import { scrape } from '../support/prometheus.js';

const ALICE = { authorization: basicAuth('alice', 'alice-password-1') };
const OPS = { authorization: basicAuth('ops', 'ops-password-1') };
type Json = Record<string, unknown>;

/** What arrives at /incoming from a peer's replicator (new_edits false), answered once inbound distribution decided it. */
async function fromPeer(node: TestNode, docs: Doc[]): Promise<void> {
  const at = '2030-01-01T00:00:00.000000Z';
  const arriving = docs.map((doc, i) => ({ publish_node: 'peer', publishing_node: 'peer', create_timestamp: at, update_timestamp: at, ...doc, _id: doc.doc_ID, _rev: `1-${String(i).padStart(32, 'a')}`, node_timestamp: at }));
  const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { ...OPS, 'content-type': 'application/json' }, body: JSON.stringify({ docs: arriving, new_edits: false }) });
  expect(response.status, await response.text()).to.equal(201);
}

const stored = async (node: TestNode, id: string): Promise<Json> => await node.couch.use(node.names.resourceData).get(id) as unknown as Json;
const oai = async (node: TestNode, query: string): Promise<string> => (await fetch(`${node.url}/OAI-PMH?${query}`)).text();
const jsonHeader = async (node: TestNode, id: string): Promise<Json | undefined> =>
  ((await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`)).body.getrecord as { record: { header: Json }[] } | undefined)?.record[0]?.header;

for (const action of ['delete', 'purge'] as const) {
  describe(`POST /delete, delete_action ${action}, deleted_data_policy persistent`, () => {
    let node: TestNode;
    let keys: Awaited<ReturnType<typeof keyServer>>;
    let sign: (doc: Doc) => Promise<Doc>;
    const docs: Doc[] = nsdlDocs(3).map((d, i) => ({ ...d, doc_ID: `persist-${i}`, identity: { submitter: 'alice', submitter_type: 'agent' } }));
    before(async () => {
      keys = await keyServer();
      const pair = await generateNodeKeyPair('persist-signer', 'persist-signer@example.org');
      const location = keys.put('persist-signer', pair.publicKeyArmored);
      sign = (doc) => signEnvelope(doc, pair.privateKeyArmored, undefined, [location]);
      node = await startTestNode({ nodeConfig: { policy: { deleted_data_policy: 'persistent', allow_private_fetch: true }, services: { delete: { service_data: { delete_action: action } } } } });
      await addAccount(node, 'alice', 'alice-password-1');
      await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
      // persist-0 and persist-1 proxy-signed by the node, persist-2 signed by alice's own key.
      const { body } = await postJson(`${node.url}/publish`, { documents: [docs[0], docs[1], await sign(docs[2] as Doc)] }, ALICE);
      expect((body.document_results as { OK: boolean }[]).every((r) => r.OK), JSON.stringify(body)).to.equal(true);
    });
    after(async () => { await node.stop(); await keys.close(); });

    it('keeps a stub marked deleted, without the content, which nothing serves or counts; a second delete is told it is already deleted', async () => {
      const before = await stored(node, 'persist-0');
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['persist-0'] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'persist-0', OK: true }]);
      const stub = await stored(node, 'persist-0');
      expect(Object.keys(stub).sort()).to.deep.equal(['_id', '_rev', 'create_timestamp', 'digital_signature', 'doc_ID', 'doc_type', 'doc_version', 'identity', 'node_deleted', 'node_publisher_account', 'node_timestamp', 'payload_schema', 'publish_node', 'publishing_node', 'resource_locator', 'update_timestamp']);
      expect(stub).to.include({ doc_type: 'resource_data', doc_ID: 'persist-0', resource_locator: before.resource_locator, update_timestamp: before.update_timestamp, node_publisher_account: await recordedOwner(node, 'alice') });
      expect(stub.identity).to.deep.equal({ submitter: 'alice' });
      expect(stub.node_deleted).to.be.a('string');
      expect(stub.node_timestamp).to.equal(stub.node_deleted);
      expect((stub.node_timestamp as string) > (before.node_timestamp as string), 'a new datestamp').to.equal(true);
      const again = await postJson(`${node.url}/delete`, { request_IDs: ['persist-0'] }, ALICE);
      expect(again.body.document_results).to.deep.equal([{ doc_ID: 'persist-0', OK: false, error: 'document already deleted' }]);
      // Nothing serves or counts it.
      const locator = docs[0]?.resource_locator as string;
      const byId = await postJson(`${node.url}/obtain`, { request_IDs: ['persist-0'], by_doc_ID: true });
      expect((byId.body.documents as { document: unknown }[])[0]?.document).to.equal(null);
      const byLocator = await postJson(`${node.url}/obtain`, { request_IDs: [locator] });
      expect(((byLocator.body.documents as { document: Json[] | null }[])[0]?.document ?? []).map((doc) => doc.doc_ID)).to.not.include('persist-0');
      const slice = await getJson(`${node.url}/slice?any_tags=lr-test-data&ids_only=true`);
      expect(JSON.stringify(slice.body.documents)).to.not.include('persist-0');
      expect(JSON.stringify(slice.body.documents)).to.include('persist-1');
      expect((await currentStatus(node.url)).doc_count).to.equal(2);
    });

    it('both harvests report the record as deleted (JSON, oai_dc and its own format); Identify says persistent', async () => {
      expect(await jsonHeader(node, 'persist-0')).to.include({ identifier: 'persist-0', status: 'deleted' });
      const listed = ((await getJson(`${node.url}/harvest/listrecords`)).body.listrecords as { record: Json }[]).map((item) => item.record);
      const record = listed.find((item) => (item.header as Json).identifier === 'persist-0');
      expect(record).to.deep.equal({ header: { identifier: 'persist-0', datestamp: (await jsonHeader(node, 'persist-0'))?.datestamp, status: 'deleted' } });
      for (const prefix of ['oai_dc', 'nsdl_dc']) {
        expect(await oai(node, `verb=GetRecord&metadataPrefix=${prefix}&identifier=persist-0`), prefix).to.match(/<record><header status="deleted"><identifier>persist-0<\/identifier><datestamp>[^<]+<\/datestamp><\/header><\/record>/);
        expect(await oai(node, `verb=ListIdentifiers&metadataPrefix=${prefix}`), prefix).to.include('<header status="deleted"><identifier>persist-0</identifier>');
      }
      expect(await oai(node, 'verb=Identify')).to.include('<deletedRecord>persistent</deletedRecord>');
    });

    it('the live copy arriving again from a peer does not bring it back', async () => {
      const copy = ((await postJson(`${node.url}/obtain`, { request_IDs: ['persist-1'], by_doc_ID: true })).body.documents as { document: Doc[] }[])[0]?.document[0] as Doc;
      expect((await postJson(`${node.url}/delete`, { request_IDs: ['persist-1'] }, ALICE)).body.document_results).to.deep.equal([{ doc_ID: 'persist-1', OK: true }]);
      const stale = async (): Promise<number> => (await scrape(`${node.url}/metrics`, OPS)).value('lr_incoming_documents_total', { outcome: 'stale' });
      const staleBefore = await stale();
      await fromPeer(node, [copy]);
      // Judged no newer than the stub (inbound.service.ts, isStaleCopy), not refused by another rule.
      expect(await stale() - staleBefore).to.equal(1);
      const held = await stored(node, 'persist-1');
      expect(held.node_deleted, 'still deleted').to.be.a('string');
      expect(held).to.not.have.property('resource_data');
      expect(await jsonHeader(node, 'persist-1')).to.include({ status: 'deleted' });
      expect((await currentStatus(node.url)).doc_count).to.equal(1);
    });

    it('a deletion document by the same key, from a peer, is taken and tombstones the stub (the stub keeps the signature)', async () => {
      expect((await postJson(`${node.url}/delete`, { request_IDs: ['persist-2'] }, ALICE)).body.document_results).to.deep.equal([{ doc_ID: 'persist-2', OK: true }]);
      const { doc_ID: _id, ...template } = replacementChain()[2] as Doc;
      void _id;
      await fromPeer(node, [await sign({ ...template, doc_ID: 'persist-2-deletion', replaces: ['persist-2'], identity: { submitter: 'alice', submitter_type: 'agent' } })]);
      expect(await stored(node, 'persist-2')).to.include({ doc_type: 'tombstone', deleted: true });
      expect(await stored(node, 'persist-2-deletion')).to.include({ payload_placement: 'none' });
      expect(await jsonHeader(node, 'persist-2')).to.include({ status: 'deleted' });
    });

    it('its owner may publish its doc_ID again, as after mark (the stub keeps the owner, the node\'s signature and the submitter)', async () => {
      const { body } = await postJson(`${node.url}/publish`, { documents: [docs[0]] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'persist-0', OK: true }]);
      expect(await jsonHeader(node, 'persist-0')).to.include({ status: 'active' });
    });
  });
}
