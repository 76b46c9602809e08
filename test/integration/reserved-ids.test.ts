/**
 * doc_IDs CouchDB treats specially (a leading "_": design, local or refused ids) are refused per
 * document, at /publish and for documents arriving by replication at /incoming; the rest of the
 * batch is stored (issue 14, defects 1 and 2).
 */
import http from 'node:http';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const ADMIN = { authorization: basicAuth('ops', 'ops-password-1') };

async function stored(node: TestNode, id: string): Promise<Doc | undefined> {
  try { return await node.couch.use(node.names.resourceData).get(id) as unknown as Doc; } catch { return undefined; }
}

describe('reserved doc_IDs', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  for (const id of ['_design/x', '_local/x', '_local/auth_session_secret']) {
    it(`refuses doc_ID ${id} with a per-document error and stores nothing under it`, async () => {
      const [doc] = nsdlDocs(1);
      const { status, body } = await postJson(`${node.url}/publish`, { documents: [{ ...doc, doc_ID: id }] }, AUTH);
      expect(status).to.equal(200);
      const [result] = body.document_results as { OK: boolean; error?: string }[];
      expect(result?.OK).to.equal(false);
      expect(result?.error).to.match(/doc_ID must not begin with "_"/);
      expect(await stored(node, id)).to.equal(undefined);
    });
  }

  it('refuses a doc_ID holding a control character (XML cannot carry it: OAI-PMH would show another identifier)', async () => {
    const ids = ['urn:x:H\u0001', 'tab\tid', 'line\nid', 'del\u007f', 'c1\u0085'];
    const docs = [...nsdlDocs(ids.length).map((doc, i) => ({ ...doc, doc_ID: ids[i] })), { ...(nsdlDocs(1)[0] as Doc), doc_ID: 'control-good' }];
    const { body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    const results = body.document_results as { OK: boolean; error?: string }[];
    expect(results.map((r) => r.OK)).to.deep.equal([false, false, false, false, false, true]);
    for (const result of results.slice(0, -1)) expect(result.error).to.match(/doc_ID must not hold control characters/);
    for (const id of ids) expect(await stored(node, id)).to.equal(undefined);
  });

  it('refuses doc_IDs "." and ".." (dot-segments to a URL parser: the owner could never read or delete them)', async () => {
    const docs = [...nsdlDocs(2).map((doc, i) => ({ ...doc, doc_ID: ['.', '..'][i] })), { ...(nsdlDocs(1)[0] as Doc), doc_ID: 'dots-good' }];
    const { body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    const results = body.document_results as { OK: boolean; error?: string }[];
    expect(results.map((r) => r.OK)).to.deep.equal([false, false, true]);
    expect(results[0]?.error).to.match(/must not be "\." or "\.\."/);
    const all = await node.couch.use(node.names.resourceData).list();
    expect(all.rows.map((row) => row.id)).to.not.include.members(['.', '..']);
  });

  it('a document nested deeper than 1,000 levels is refused by itself; the rest of the batch is stored', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 2000; i += 1) deep = [deep];
    const docs = [{ ...(nsdlDocs(1)[0] as Doc), doc_ID: 'deep-1', X_extra: deep }, { ...(nsdlDocs(1)[0] as Doc), doc_ID: 'deep-good' }];
    const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    expect(status).to.equal(200);
    const results = body.document_results as { OK: boolean; error?: string }[];
    expect(results.map((r) => r.OK)).to.deep.equal([false, true]);
    expect(results[0]?.error).to.match(/nests arrays and objects deeper than 1000 levels/);
    expect(await stored(node, 'deep-1')).to.equal(undefined);
  });

  it('/incoming refuses dot-segments, written plainly or percent-encoded, before anything reaches the store', async () => {
    // node:http sends the path as written (fetch would resolve the dot-segments before sending).
    const put = (path: string): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
      const target = new URL(node.url);
      http.request({ host: target.hostname, port: target.port, path, method: 'PUT', headers: { ...ADMIN, 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }).on('error', reject).end('{}');
    });
    for (const path of ['/incoming/..', '/incoming/.', '/incoming/%2e%2e', '/incoming/_local/..', '/incoming/_local/%2E']) {
      const response = await put(path);
      expect(response.status, path).to.equal(403);
      expect(JSON.parse(response.body), path).to.deep.include({ OK: false });
    }
  });

  it('one reserved doc_ID among good ones: one per-document error, the others stored', async () => {
    const [good1, bad, good2] = nsdlDocs(3) as [Doc, Doc, Doc];
    const docs = [{ ...good1, doc_ID: 'reserved-good-1' }, { ...bad, doc_ID: '_changes' }, { ...good2, doc_ID: 'reserved-good-2' }];
    const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    expect(status).to.equal(200);
    const results = body.document_results as { doc_ID: string; OK: boolean; error?: string }[];
    expect(results.map((r) => r.OK)).to.deep.equal([true, false, true]);
    expect(results[1]?.error).to.match(/reserved/);
    expect(await stored(node, 'reserved-good-1')).to.not.equal(undefined);
    expect(await stored(node, 'reserved-good-2')).to.not.equal(undefined);
  });

  it('refuses a replaces entry naming a reserved id', async () => {
    const [doc] = nsdlDocs(1);
    const { body } = await postJson(`${node.url}/publish`, { documents: [{ ...doc, doc_version: '0.49.0', replaces: ['_design/harvest'] }] }, AUTH);
    const [result] = body.document_results as { OK: boolean; error?: string }[];
    expect(result?.OK).to.equal(false);
    expect(result?.error).to.match(/replaces must not name/);
  });

  it('a document replicated to /incoming with a reserved doc_ID is rejected, not stored', async () => {
    const [doc] = nsdlDocs(1) as [Doc];
    const incoming = { ...doc, _id: 'arrived-1', _rev: '1-aaaa', doc_ID: '_design/evil', publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
    const [good] = nsdlDocs(2).slice(1) as [Doc];
    const goodIncoming = { ...good, _id: 'arrived-2', _rev: '1-bbbb', doc_ID: 'arrived-good', publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
    const control = { ...goodIncoming, _id: 'arrived-3', _rev: '1-cccc', doc_ID: 'arrived\u0001control' };
    const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ docs: [incoming, control, goodIncoming], new_edits: false }) });
    expect(response.status).to.equal(201);
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline && !(await stored(node, 'arrived-good'))) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await stored(node, 'arrived-good')).to.not.equal(undefined);
    expect(await stored(node, '_design/evil')).to.equal(undefined);
    expect(await stored(node, 'arrived\u0001control')).to.equal(undefined);
  });
});
