/**
 * Replication requests at /incoming whose bodies CouchDB refuses are refused by the node before
 * either store sees them (src/services/distribute/inbound-proxy.http.ts). Found by the generated
 * /incoming requests of the reliability suite: on the embedded store, a malformed `_attachments`
 * answered 500 (a PouchDB TypeError) and a `_revs_diff` value that is not an array, for a stored
 * id, crashed the store process (it restarted; the node answered 503 meanwhile). An unknown
 * special member (`_foo`) is CouchDB's 400 doc_validation on both stores (the embedded store said
 * 500 until patches/pouchdb-errors+9.0.0.patch).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const ADMIN = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };

describe('/incoming: request bodies CouchDB refuses', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${node.url}/incoming/${path}`, { method: 'POST', headers: ADMIN, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  }

  async function storedIn(db: string, id: string): Promise<boolean> {
    try { await node.couch.use(db).get(id); return true; } catch { return false; }
  }

  it('a replicated _bulk_docs with a malformed special member is a 400 naming it, and nothing of it is stored', async () => {
    const [doc] = nsdlDocs(1) as [Doc];
    for (const [member, value] of [['_attachments', '_local/x'], ['_attachments', { 'a.txt': '_' }], ['_revisions', 'x']] as const) {
      for (const newEdits of [true, false]) {
        const id = `malformed-${member}-${newEdits}-${typeof value}`;
        const answer = await post('_bulk_docs', { docs: [{ ...doc, _id: id, _rev: '1-aaaa', [member]: value }], new_edits: newEdits });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
        expect(answer.body).to.deep.equal({ OK: false, error: `Bad special document member: ${member}` });
        expect(await storedIn(node.names.resourceData, id)).to.equal(false);
        expect(await storedIn(node.names.incoming, id)).to.equal(false);
      }
    }
  });

  it('_revs_diff and _missing_revs take only an object of id to an array of revisions; the store keeps answering', async () => {
    // A document in the incoming database, so that the ids asked about exist there.
    const created = await post('_bulk_docs', { docs: [{ _id: 'present', value: 1 }] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    for (const endpoint of ['_revs_diff', '_missing_revs']) {
      for (const body of [{ present: true }, { present: 'x' }, { present: [1] }, [true], 'x', null]) {
        const answer = await post(endpoint, body);
        expect(answer.status, `${endpoint} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`).to.equal(400);
        expect((answer.body as { error: string }).error).to.equal(`${endpoint} needs a JSON object of document id to an array of revisions`);
      }
    }
    const good = await post('_revs_diff', { present: ['1-abc'] });
    expect(good.status).to.equal(200);
    expect(good.body).to.deep.equal({ present: { missing: ['1-abc'] } });
    expect(node.logs.filter((line) => line.includes('embedded store exited'))).to.deep.equal([]);
  });

  it('a document with an unknown special member, PUT through /incoming, is the store\'s 400 doc_validation on both stores', async () => {
    const response = await fetch(`${node.url}/incoming/odd-member`, { method: 'PUT', headers: ADMIN, body: JSON.stringify({ value: 1, _odd: true }) });
    const body = await response.json() as { error?: string; reason?: string };
    expect(response.status, JSON.stringify(body)).to.equal(400);
    expect(body).to.include({ error: 'doc_validation' });
    expect(body.reason).to.match(/^Bad special document member: _odd/);
    expect(await storedIn(node.names.incoming, 'odd-member')).to.equal(false);
  });
});
