/**
 * A request body over the size limit, on every JSON endpoint that reads one (issue 12, part 4):
 * one message, `request body too large: the limit is N bytes`; the spec's HTTP 500 on publish,
 * delete and obtain (spec "Errors": 200 / 500), a harvest protocol error on /harvest (HTTP 200,
 * `OK: false`, badArgument), 413 on the CouchDB-compatible /incoming endpoint (as CouchDB does).
 */
import http from 'node:http';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';

const AUTH = { authorization: basicAuth('pub', 'publisher-password-1') };
const ADMIN = basicAuth('ops', 'admin-password-12');
const MSG_LIMIT = 4096;
const MIB = 1024 * 1024;

describe('request bodies over the size limit on the JSON endpoints', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { publish: { service_data: { msg_size_limit: MSG_LIMIT } }, delete: { service_data: { msg_size_limit: MSG_LIMIT } } } } });
    await addAccount(node, 'pub', 'publisher-password-1');
    await addAccount(node, 'ops', 'admin-password-12', 'network_admin');
  });
  after(async () => node.stop());

  const padded = (field: string, bytes: number): string => JSON.stringify({ [field]: ['x'], pad: 'y'.repeat(bytes) });

  for (const path of ['/publish', '/delete']) {
    it(`POST ${path}: the spec's 500, naming the limit and its setting`, async () => {
      const { status, body } = await postJson(`${node.url}${path}`, padded(path === '/publish' ? 'documents' : 'request_IDs', MSG_LIMIT), AUTH);
      expect(status).to.equal(500);
      expect(body).to.deep.equal({ OK: false, error: `request body too large: the limit is ${MSG_LIMIT} bytes (service_data.msg_size_limit)` });
    });
  }

  it('POST /obtain: the spec\'s 500, naming the limit and its setting', async () => {
    const { status, body } = await postJson(`${node.url}/obtain`, padded('request_IDs', MIB));
    expect(status).to.equal(500);
    expect(body).to.deep.equal({ OK: false, error: `request body too large: the limit is ${MIB} bytes (service_data.msg_size_limit)` });
  });

  it('POST /harvest/listrecords: a harvest protocol error (badArgument) naming the limit', async () => {
    const { status, body } = await postJson(`${node.url}/harvest/listrecords`, padded('from', MIB));
    expect(status).to.equal(200);
    expect(body).to.include({ OK: false, error: 'badArgument', message: `request body too large: the limit is ${MIB} bytes` });
  });

  it('POST /incoming/_bulk_docs (CouchDB replication): 413 naming the limit, refused before the body is read', async () => {
    // A declared length of 1 GiB with a few bytes sent: the answer comes before the rest would.
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { authorization: ADMIN, 'content-type': 'application/json', 'content-length': String(1024 * MIB) } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
        response.on('end', () => { resolve({ status: response.statusCode ?? 0, text }); request.destroy(); });
      });
      request.on('error', reject);
      request.write('{"docs": [');
    });
    expect(answer.status).to.equal(413);
    expect(JSON.parse(answer.text)).to.deep.equal({ OK: false, error: `request body too large: the limit is ${256 * MIB} bytes` });
  });

  // Found by the generated bad input (test/reliability): the store overflowed its stack on such a
  // body and the proxy passed its 500 on. A replicated document nests a few levels, not thousands.
  for (const [method, path] of [['PUT', '/incoming/deep-doc'], ['PUT', '/incoming/_local/deep'], ['POST', '/incoming/_bulk_docs'], ['POST', '/incoming/_revs_diff']] as const) {
    it(`${method} ${path} nested 20,000 deep: 400 naming the limit, not the store's 500`, async () => {
      const nested = `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}`;
      const text = path.endsWith('_bulk_docs') ? `{"new_edits": true, "docs": [{"_id": "deep-doc", "x": ${nested}}]}` : `{"x": ${nested}}`;
      const response = await fetch(`${node.url}${path}`, { method, headers: { authorization: ADMIN, 'content-type': 'application/json' }, body: text });
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ OK: false, error: 'request body nests deeper than 1000 levels' });
    });
  }

  it('a body that is not JSON: the spec\'s 500 on publish and obtain too', async () => {
    expect(await postJson(`${node.url}/publish`, '{"documents": [', AUTH)).to.deep.include({ status: 500, body: { OK: false, error: 'request body is not valid JSON' } });
    expect(await postJson(`${node.url}/obtain`, '{"request_IDs": [')).to.deep.include({ status: 500, body: { OK: false, error: 'request body is not valid JSON' } });
  });

  it('a Content-Encoding the node does not have, or a body not in the one it names, is said to be so, not "not valid JSON"', async () => {
    const send = async (encoding: string): Promise<unknown> => {
      const response = await fetch(`${node.url}/publish`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'content-encoding': encoding }, body: '{"documents": []}' });
      return { status: response.status, body: await response.json() };
    };
    expect(await send('foo')).to.deep.equal({ status: 500, body: { OK: false, error: 'Unsupported Content-Encoding: foo: send the body as it is, or in gzip, deflate or br' } });
    for (const encoding of ['gzip', 'br']) expect(await send(encoding), encoding).to.deep.equal({ status: 500, body: { OK: false, error: 'the request body could not be decoded as its Content-Encoding says' } });
  });
});
