/**
 * A request body over the size limit, on every JSON endpoint that reads one (issue 12, part 4):
 * one message, `request body too large: the limit is N bytes`; the spec's HTTP 500 on publish,
 * delete and obtain (spec "Errors": 200 / 500), a harvest protocol error on /harvest (HTTP 200,
 * `OK: false`, badArgument). (The CouchDB-compatible /incoming endpoint answers 413, as CouchDB does.)
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';

const AUTH = { authorization: basicAuth('pub', 'publisher-password-1') };
const MSG_LIMIT = 4096;
const MIB = 1024 * 1024;

describe('request bodies over the size limit on the JSON endpoints', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { publish: { service_data: { msg_size_limit: MSG_LIMIT } }, delete: { service_data: { msg_size_limit: MSG_LIMIT } } } } });
    await addAccount(node, 'pub', 'publisher-password-1');
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

  it('POST /obtain: the spec\'s 500, naming the limit', async () => {
    const { status, body } = await postJson(`${node.url}/obtain`, padded('request_IDs', MIB));
    expect(status).to.equal(500);
    expect(body).to.deep.equal({ OK: false, error: `request body too large: the limit is ${MIB} bytes` });
  });

  it('POST /harvest/listrecords: a harvest protocol error (badArgument) naming the limit', async () => {
    const { status, body } = await postJson(`${node.url}/harvest/listrecords`, padded('from', MIB));
    expect(status).to.equal(200);
    expect(body).to.include({ OK: false, error: 'badArgument', message: `request body too large: the limit is ${MIB} bytes` });
  });

  it('a body that is not JSON: the spec\'s 500 on publish and obtain too', async () => {
    expect(await postJson(`${node.url}/publish`, '{"documents": [', AUTH)).to.deep.include({ status: 500, body: { OK: false, error: 'request body is not valid JSON' } });
    expect(await postJson(`${node.url}/obtain`, '{"request_IDs": [')).to.deep.include({ status: 500, body: { OK: false, error: 'request body is not valid JSON' } });
  });
});
