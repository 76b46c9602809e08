/**
 * The identifier lists page by the description's `id_limit`, the record lists by `doc_limit`
 * (harvest-settings.ts), in Basic Harvest (JSON) and OAI-PMH alike, through their resumption
 * tokens to the end: every published document once, none left out. They paged both by doc_limit.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const PUBLISHED = 20;
const limits = { doc_limit: 3, id_limit: 7 };
/** Page sizes through 20 documents: OAI-PMH never ends on a page of one record (list.ts), which 20 does not meet here. */
const HEADER_PAGES = [7, 7, 6];
const RECORD_PAGES = [3, 3, 3, 3, 3, 3, 2];

describe('identifier lists page by id_limit, record lists by doc_limit', function () {
  this.timeout(120000);
  let node: TestNode;
  let published: string[];
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { harvest: { service_data: limits }, oai_pmh: { service_data: limits } } } });
    await addAccount(node, 'alice', 'alice-password-1');
    published = Array.from({ length: PUBLISHED }, (_, i) => `idl-${String(i).padStart(2, '0')}`);
    const documents = nsdlDocs(PUBLISHED).map((doc, i) => ({ ...doc, doc_ID: published[i] }));
    const { body } = await postJson(`${node.url}/publish`, { documents }, AUTH);
    expect((body.document_results as { OK: boolean }[]).filter((result) => result.OK)).to.have.length(PUBLISHED);
  });
  after(async () => node?.stop());

  it('the descriptions state both limits', async () => {
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: Doc }[];
    for (const name of ['Basic Harvest', 'OAI-PMH Harvest']) expect(services.find((service) => service.service_name === name)?.service_data).to.include(limits);
  });

  for (const [verb, sizes] of [['listidentifiers', HEADER_PAGES], ['listrecords', RECORD_PAGES]] as const) {
    it(`Basic Harvest ${verb}: pages of ${sizes[0]}, every document once`, async () => {
      const pages: Doc[][] = [];
      let url = `${node.url}/harvest/${verb}`;
      for (let guard = 0; guard < 20; guard += 1) {
        const { body } = await getJson(url);
        expect(body.OK, JSON.stringify(body)).to.equal(true);
        pages.push(body[verb] as Doc[]);
        if (typeof body.resumption_token !== 'string') {
          expect(body.resumption_token).to.equal(null);
          break;
        }
        url = `${node.url}/harvest/${verb}?resumption_token=${encodeURIComponent(body.resumption_token)}`;
      }
      expect(pages.map((page) => page.length)).to.deep.equal(sizes);
      const header = (item: Doc): Doc => ((item.record as Doc | undefined)?.header ?? item.header) as Doc;
      expect(pages.flat().map((item) => header(item).identifier)).to.deep.equal(published);
    });
  }

  for (const [verb, sizes] of [['ListIdentifiers', HEADER_PAGES], ['ListRecords', RECORD_PAGES]] as const) {
    it(`OAI-PMH ${verb}: pages of ${sizes[0]}, every document once, each page schema-valid with its cursor`, async () => {
      const pages: string[][] = [];
      const tokens: string[] = [];
      let query = `verb=${verb}&metadataPrefix=oai_dc`;
      for (let guard = 0; guard < 20; guard += 1) {
        const xml = await (await fetch(`${node.url}/OAI-PMH?${query}`)).text();
        assertValidOai(xml, 'official');
        pages.push([...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((match) => match[1] as string));
        const token = /<resumptionToken[^>]*\/>|<resumptionToken[^>]*>[^<]*<\/resumptionToken>/.exec(xml)?.[0] ?? '';
        tokens.push(token.replace(/ expirationDate="[^"]*"/, '').replace(/>[^<]+</, '>…<'));
        const value = />([^<]+)<\/resumptionToken>/.exec(token)?.[1];
        if (!value) break;
        query = `verb=${verb}&resumptionToken=${encodeURIComponent(value)}`;
      }
      expect(pages.map((page) => page.length)).to.deep.equal(sizes);
      expect(pages.flat()).to.deep.equal(published);
      const cursors = sizes.map((_, index) => sizes.slice(0, index).reduce((sum, size) => sum + size, 0));
      expect(tokens).to.deep.equal(cursors.map((cursor, index) => (index < sizes.length - 1
        ? `<resumptionToken cursor="${cursor}">…</resumptionToken>`
        : `<resumptionToken cursor="${cursor}" completeListSize="${PUBLISHED}"/>`)));
    });
  }
});
