/**
 * Arguments of the wrong type and bodies not declared JSON (issue 14, defects 4 and 5): each is
 * refused in the service's own error form, never read as "no argument" or as JSON anyway.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };

describe('request argument types and body media types', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    await postJson(`${node.url}/publish`, { documents: nsdlDocs(3) }, AUTH);
  });
  after(async () => node.stop());

  for (const [name, body] of [['request_IDs null', { request_IDs: null }], ['request_IDs a string', { request_IDs: 'x' }], ['by_doc_ID null', { by_doc_ID: null }], ['ids_only a number', { ids_only: 1 }]] as const) {
    it(`POST /obtain with ${name} is an error, not every document`, async () => {
      const { status, body: answer } = await postJson(`${node.url}/obtain`, body);
      expect(status).to.equal(500);
      expect(answer.OK).to.equal(false);
      expect(answer).to.not.have.property('documents');
    });
  }

  it('POST /obtain with a request ID over the length limit names the limit', async () => {
    const { body } = await postJson(`${node.url}/obtain`, { request_IDs: ['x'.repeat(9000)] });
    expect(body.OK).to.equal(false);
    expect(String(body.error)).to.match(/limit is 8192/);
  });

  for (const path of ['/obtain', '/publish', '/harvest/listrecords']) {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      it(`POST ${path} with a JSON body sent as ${type}: 415 {"OK": false}`, async () => {
        const { status, body } = await getJson(`${node.url}${path}`, { method: 'POST', headers: { 'content-type': type, ...AUTH }, body: JSON.stringify({ documents: nsdlDocs(1) }) });
        expect(status).to.equal(415);
        expect(body.OK).to.equal(false);
        expect(String(body.error)).to.match(/Content-Type: application\/json/);
      });
    }
  }

  it('application/json with and without a charset is still read', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8']) {
      const { status, body } = await getJson(`${node.url}/obtain`, { method: 'POST', headers: { 'content-type': type }, body: '{"ids_only": true}' });
      expect(status, type).to.equal(200);
      expect(body).to.have.property('documents');
    }
  });
});
