/**
 * Text CouchDB cannot store (a lone surrogate, `"\ud800"` in JSON) is refused where it arrives,
 * never passed to the store, which refuses the whole request (src/domain/well-formed-text.ts).
 * Found by the generated bad input on CouchDB 3.5: a delete naming such an id answered 502
 * "CouchDB error (read documents): bad_request", and /incoming passed on a `new_edits` of "false",
 * which CouchDB answered with its own 500 function_clause.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const ADMIN = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };
const LONE = 'a\ud800b';

describe('text the store cannot hold', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  it('publish: a document holding a lone surrogate gets its own error; the others in the batch are stored', async () => {
    const [good, inKeys, inId] = nsdlDocs(3) as [Doc, Doc, Doc];
    const { status, body } = await postJson(`${node.url}/publish`, { documents: [good, { ...inKeys, keys: ['math', LONE] }, { ...inId, doc_ID: `id-${LONE}` }] }, AUTH);
    expect(status, JSON.stringify(body)).to.equal(200);
    const results = body.document_results as { OK: boolean; error?: string }[];
    expect(results.map((result) => result.OK)).to.deep.equal([true, false, false]);
    for (const result of results.slice(1)) expect(result.error).to.match(/well-formed Unicode/);
  });

  it('delete and obtain: an id with a lone surrogate names no document; the request is answered, not a store error', async () => {
    const deleted = await postJson(`${node.url}/delete`, { request_IDs: [`x${LONE}`] }, AUTH);
    expect(deleted.status, JSON.stringify(deleted.body)).to.not.be.oneOf([502, 503]);
    expect(JSON.stringify(deleted.body)).to.not.match(/CouchDB/);
    const obtained = await postJson(`${node.url}/obtain`, { request_IDs: [`x${LONE}`], by_doc_ID: true });
    expect(obtained.status, JSON.stringify(obtained.body)).to.not.be.oneOf([502, 503]);
    expect(JSON.stringify(obtained.body)).to.not.match(/CouchDB/);
  });

  it('/incoming: new_edits must be a boolean, and replicated documents well-formed text: 400 each', async () => {
    const [doc] = nsdlDocs(1) as [Doc];
    const post = async (body: unknown): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: ADMIN, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    };
    expect(await post({ docs: [{ ...doc, _id: 'ne-1', _rev: '1-a' }], new_edits: 'false' })).to.deep.equal({ status: 400, body: { OK: false, error: 'new_edits must be true or false' } });
    for (const newEdits of [true, false]) {
      const answer = await post({ docs: [{ ...doc, _id: `lone-${newEdits}`, _rev: '1-a', keys: [LONE] }], new_edits: newEdits });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
      expect((answer.body as { error: string }).error).to.match(/well-formed Unicode/);
    }
  });
});
