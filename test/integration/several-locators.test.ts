/**
 * A 0.49.0 document may give several resource locators (an array: the Learning Registry schemas
 * and their validation cases accept it). Publish stored one, and no lookup by locator found it:
 * the view keyed strings only.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const LOCATORS = ['http://example.org/several/1', 'http://example.org/several/2'];

describe('a document with several resource locators', function () {
  this.timeout(60000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    const [doc] = nsdlDocs(1).map((d) => ({ ...d, doc_ID: 'several-1', doc_version: '0.49.0', resource_locator: LOCATORS }));
    const { body } = await postJson(`${node.url}/publish`, { documents: [doc] }, AUTH);
    expect(body.document_results).to.deep.equal([{ doc_ID: 'several-1', OK: true }]);
  });
  after(async () => node.stop());

  it('is found by each of them: obtain (GET and POST), JSON getrecord and OAI-PMH GetRecord', async () => {
    for (const locator of LOCATORS) {
      const got = await getJson(`${node.url}/obtain?request_ID=${encodeURIComponent(locator)}`);
      expect((got.body.documents as { document: { doc_ID: string }[] | null }[])[0]?.document?.map((d) => d.doc_ID), locator).to.deep.equal(['several-1']);
      const posted = await postJson(`${node.url}/obtain`, { request_IDs: [locator], by_resource_ID: true });
      expect((posted.body.documents as { document: { doc_ID: string }[] | null }[])[0]?.document?.map((d) => d.doc_ID), locator).to.deep.equal(['several-1']);
      const record = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(locator)}`);
      expect(record.body.OK, locator).to.equal(true);
      const oai = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&by_resource_ID=T&identifier=${encodeURIComponent(locator)}`)).text();
      expect(oai, locator).to.include('<identifier>several-1</identifier>');
      // The crosswalked record names every locator.
      for (const each of LOCATORS) expect(oai).to.include(`<dc:identifier>${each}</dc:identifier>`);
    }
  });
});
