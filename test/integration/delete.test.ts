/** POST /delete, the deprecated Basic Delete (spec "Basic Delete (deprecated)"). */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, currentStatus, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const ALICE = { authorization: basicAuth('alice', 'alice-password-1') };
const BOB = { authorization: basicAuth('bob', 'bob-password-12') };

async function nodeWith(action: string, policy = 'transient'): Promise<TestNode> {
  const node = await startTestNode({ nodeConfig: { policy: { deleted_data_policy: policy }, services: { delete: { service_data: { delete_action: action, doc_limit: 3 } } } } });
  await addAccount(node, 'alice', 'alice-password-1');
  await addAccount(node, 'bob', 'bob-password-12');
  const docs = nsdlDocs(3).map((d, i) => ({ ...d, doc_ID: `del-${i}`, identity: { submitter: 'alice', submitter_type: 'agent' } }));
  const { body } = await postJson(`${node.url}/publish`, { documents: docs }, ALICE);
  expect((body.document_results as { OK: boolean }[]).every((r) => r.OK)).to.equal(true);
  return node;
}

describe('POST /delete', () => {
  describe('delete_action mark', () => {
    let node: TestNode;
    before(async () => { node = await nodeWith('mark'); });
    after(async () => node.stop());

    it('requires credentials, and says delete needs them', async () => {
      const { status, body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-0'] });
      expect(status).to.equal(401);
      // It said "publish needs the credentials …".
      expect(body.error).to.match(/^delete needs the credentials of an account of this node holding the role publisher/);
    });

    it('per-ID results aligned with request_IDs; marked documents leave the live set', async () => {
      const published = await node.couch.use(node.names.resourceData).get('del-0') as unknown as Record<string, unknown>;
      const { status, body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-0', 'nope', 'del-0'] }, ALICE);
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ OK: true, document_results: [
        { doc_ID: 'del-0', OK: true },
        { doc_ID: 'nope', OK: false, error: 'document doesn\'t exist' },
        { doc_ID: 'del-0', OK: false, error: 'document already deleted' },
      ] });
      const doc = await node.couch.use(node.names.resourceData).get('del-0') as unknown as Record<string, unknown>;
      expect(doc.node_deleted).to.be.a('string');
      // A new datestamp, the mark's, so incremental harvesters (from=) see the deletion.
      expect(doc.node_timestamp).to.equal(doc.node_deleted);
      expect(String(doc.node_timestamp) > String(published.node_timestamp)).to.equal(true);
      expect((await currentStatus(node.url)).doc_count).to.equal(2);
    });

    it('document already deleted on a second request', async () => {
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-0'] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'del-0', OK: false, error: 'document already deleted' }]);
    });

    it('document already deleted for a deletion document, which harvest reports as deleted', async () => {
      // Stored as the replacement rules leave one (publishing it needs a signed chain: replacement.test.ts), owned by alice.
      const deletion = { _id: 'del-deletion', doc_ID: 'del-deletion', doc_type: 'resource_data', doc_version: '0.49.0', resource_data_type: 'metadata', active: true, TOS: { submission_TOS: 'http://example.org/tos' }, identity: { submitter: 'alice', submitter_type: 'agent' }, payload_placement: 'none', replaces: ['del-gone'], node_publisher_account: 'alice', node_timestamp: '2024-01-01T00:00:00.000000Z' };
      await node.couch.use(node.names.resourceData).insert(deletion as never);
      const record = await fetch(`${node.url}/harvest/getrecord?request_ID=del-deletion&by_doc_ID=T`);
      expect(((await record.json()) as { getrecord: { record: { header: { status: string } }[] } }).getrecord.record[0]?.header.status).to.equal('deleted');
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-deletion'] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'del-deletion', OK: false, error: 'document already deleted' }]);
    });

    it('only the owner may delete', async () => {
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-1'] }, BOB);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'del-1', OK: false, error: 'only the owner of a document may delete it' }]);
    });

    it('global errors: missing request_IDs, over doc_limit → 500', async () => {
      for (const request of [{}, { request_IDs: [] }, { request_IDs: [1] }, { request_IDs: ['a', 'b', 'c', 'd'] }]) {
        const { status, body } = await postJson(`${node.url}/delete`, request, ALICE);
        expect(status).to.equal(500);
        expect(body.OK).to.equal(false);
      }
    });
  });

  describe('a long request ID', () => {
    let node: TestNode;
    before(async () => { node = await nodeWith('mark'); });
    after(async () => node.stop());
    it('is looked up, not sent in a URL the store refuses (431 was answered 502)', async () => {
      const long = 'x'.repeat(20000);
      const { status, body } = await postJson(`${node.url}/delete`, { request_IDs: [long] }, ALICE);
      expect(status).to.equal(200);
      expect(body.document_results).to.deep.equal([{ doc_ID: long, OK: false, error: 'document doesn\'t exist' }]);
      const obtained = await postJson(`${node.url}/obtain`, { request_IDs: ['y'.repeat(8000)], by_doc_ID: true });
      expect(obtained.status).to.equal(200);
      expect((obtained.body.documents as { document: unknown }[])[0]?.document).to.equal(null);
    });
  });

  describe('two deletes of the same documents at once', () => {
    let node: TestNode;
    before(async () => { node = await nodeWith('mark'); });
    after(async () => node.stop());
    it('one deletes each document, the other is told it is already deleted (never a conflict)', async () => {
      const ids = ['del-0', 'del-1', 'del-2'];
      const answers = await Promise.all([0, 1].map(() => postJson(`${node.url}/delete`, { request_IDs: ids }, ALICE)));
      const results = answers.map((answer) => answer.body.document_results as { doc_ID: string; OK: boolean; error?: string }[]);
      for (const [position, id] of ids.entries()) {
        const both = results.map((list) => list[position]);
        expect(both.filter((result) => result?.OK), id).to.have.length(1);
        expect(both.find((result) => !result?.OK)?.error, id).to.equal('document already deleted');
      }
    });
  });

  // Under `persistent` a stub stays instead: delete-persistent.test.ts.
  for (const [action, policy] of [['delete', 'transient'], ['purge', 'no']] as const) {
    describe(`delete_action ${action}, deleted_data_policy ${policy}`, () => {
      let node: TestNode;
      before(async () => { node = await nodeWith(action, policy); });
      after(async () => node.stop());
      it('removes the document; named twice in one request, the second is already deleted', async () => {
        const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-2', 'del-2'] }, ALICE);
        expect(body.document_results).to.deep.equal([{ doc_ID: 'del-2', OK: true }, { doc_ID: 'del-2', OK: false, error: 'document already deleted' }]);
        const ids = (await node.couch.use(node.names.resourceData).list()).rows.map((r) => r.id);
        expect(ids).to.not.include('del-2');
        const again = await postJson(`${node.url}/delete`, { request_IDs: ['del-2'] }, ALICE);
        expect(again.body.document_results).to.deep.equal([{ doc_ID: 'del-2', OK: false, error: 'document doesn\'t exist' }]);
      });
    });
  }

  describe('a delete service that asks no credentials (service_authz none)', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ nodeConfig: { services: { delete: { service_auth: { service_authz: ['none'] } } } } });
      await addAccount(node, 'alice', 'alice-password-1');
      await addAccount(node, 'bob', 'bob-password-12');
      const docs = nsdlDocs(2).map((d, i) => ({ ...d, doc_ID: `open-${i}`, identity: { submitter: 'alice', submitter_type: 'agent' } }));
      const { body } = await postJson(`${node.url}/publish`, { documents: docs }, ALICE);
      expect((body.document_results as { OK: boolean }[]).every((r) => r.OK)).to.equal(true);
    });
    after(async () => node.stop());

    it('still deletes for the owner only: no credentials and another account\'s are refused per ID, the owner\'s delete', async () => {
      // It deleted anyone's documents for anyone: the owner check ran only when an account was known.
      const anonymous = await postJson(`${node.url}/delete`, { request_IDs: ['open-0'] });
      expect(anonymous.status).to.equal(200);
      expect(anonymous.body.document_results).to.deep.equal([{ doc_ID: 'open-0', OK: false, error: 'only the owner of a document may delete it: send the owner\'s credentials' }]);
      const other = await postJson(`${node.url}/delete`, { request_IDs: ['open-0'] }, BOB);
      expect(other.body.document_results).to.deep.equal([{ doc_ID: 'open-0', OK: false, error: 'only the owner of a document may delete it' }]);
      expect((await currentStatus(node.url)).doc_count).to.equal(2);
      const owner = await postJson(`${node.url}/delete`, { request_IDs: ['open-0'] }, ALICE);
      expect(owner.body.document_results).to.deep.equal([{ doc_ID: 'open-0', OK: true }]);
      expect((await currentStatus(node.url)).doc_count).to.equal(1);
      expect((await postJson(`${node.url}/delete`, { request_IDs: ['open-1'] }, { authorization: basicAuth('alice', 'wrong-password-1') })).status).to.equal(401);
    });
  });

  describe('delete_action ignore', () => {
    let node: TestNode;
    before(async () => { node = await nodeWith('ignore'); });
    after(async () => node.stop());
    it('acknowledges and changes nothing', async () => {
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-1'] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'del-1', OK: true }]);
      expect((await currentStatus(node.url)).doc_count).to.equal(3);
    });

    it('an ID named twice is acknowledged twice: nothing was deleted, so it is not "already deleted"', async () => {
      const { body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-1', 'del-1'] }, ALICE);
      expect(body.document_results).to.deep.equal([{ doc_ID: 'del-1', OK: true }, { doc_ID: 'del-1', OK: true }]);
      expect((await currentStatus(node.url)).doc_count).to.equal(3);
    });

    it('a delete_action edited in CouchDB to an unknown value fails the request naming it, and deletes nothing', async () => {
      // CONFIG is validated at start-up; the description in CouchDB is not. It answered OK and did nothing.
      await node.deps.nodes.reconcileNodeDoc('delete:Basic Delete service', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), service_data: { ...((existing?.service_data as Record<string, unknown>) ?? {}), delete_action: 'shred' } }));
      const { status, body } = await postJson(`${node.url}/delete`, { request_IDs: ['del-1'] }, ALICE);
      expect(status).to.equal(500);
      expect(body.OK).to.equal(false);
      expect(body.error).to.match(/delete_action "shred" is not one of ignore, mark, delete, purge/);
      expect((await currentStatus(node.url)).doc_count).to.equal(3);
    });
  });
});
