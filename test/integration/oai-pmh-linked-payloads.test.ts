/**
 * Linked payloads are fetched once per URL, not at every emission
 * (src/services/oai-pmh/linked-payloads.ts): a page of 100 linked records made 100 fetches and
 * harvesting it again as many more (an audit saw 200 MB of fetches).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const PATHS = ['/p/0', '/p/1', '/p/2', '/p/3', '/p/4'];

const oaiDc = (title: string): string =>
  `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title></oai_dc:dc>`;

describe('OAI-PMH linked payloads', function () {
  this.timeout(60000);
  let node: TestNode;
  let server: http.Server;
  let base: string;
  const hits = new Map<string, number>();
  const PUBLISHER = { authorization: basicAuth('pub', 'publisher-phrase-9') };

  before(async () => {
    // Each answer takes a while, so that records naming one URL are emitted while its fetch is in flight.
    server = http.createServer((req, res) => {
      hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
      setTimeout(() => { res.writeHead(200, { 'content-type': 'application/xml' }); res.end(oaiDc(`Linked ${req.url ?? ''}`)); }, 100);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Pages of 3 records: a list reads two records past its page (list.ts), which the next page emits again.
    node = await startTestNode({ nodeConfig: { policy: { allow_private_fetch: true }, services: { oai_pmh: { service_data: { doc_limit: 3 } } } } });
    await addAccount(node, 'pub', 'publisher-phrase-9');
  });
  after(async () => {
    await node?.stop();
    server?.close();
  });

  it('one fetch per URL for a GetRecord of several records, two ListRecords harvests and the GetRecords after them', async () => {
    // Seven records, five URLs: /p/0 is named by three records of one resource locator.
    const SHARED = 'http://example.org/linked/shared';
    const urls = [...PATHS, PATHS[0], PATHS[0]].map((path) => `${base}${path as string}`);
    const documents = nsdlDocs(urls.length).map(({ resource_data: _data, ...doc }, i) => ({
      ...doc, payload_placement: 'linked', payload_locator: urls[i], payload_schema_locator: urls[i], payload_schema: ['oai_dc'],
      ...(urls[i]?.endsWith(PATHS[0] as string) ? { resource_locator: SHARED } : {}),
    }));
    const published = await postJson(`${node.url}/publish`, { documents }, PUBLISHER);
    expect(published.status).to.equal(200);
    const results = published.body.document_results as { OK: boolean; doc_ID: string; error?: string }[];
    expect(results.every((result) => result.OK), JSON.stringify(results)).to.equal(true);

    // GetRecord of a resource locator emits its three records at once: they share one fetch.
    const shared = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&by_resource_ID=T&identifier=${encodeURIComponent(SHARED)}`)).text();
    expect(shared.match(/<dc:title>Linked \/p\/0<\/dc:title>/g)).to.have.length(3);
    expect(hits.get(PATHS[0] as string)).to.equal(1);
    for (let harvest = 0; harvest < 2; harvest += 1) {
      const records = await listRecords(node);
      expect(records.map((record) => record.id).sort()).to.deep.equal(results.map((result) => result.doc_ID).sort());
      for (const record of records) expect(record.xml).to.include(`Linked ${new URL(urls[results.findIndex((r) => r.doc_ID === record.id)] as string).pathname}`);
    }
    for (const { doc_ID: id } of results) {
      const xml = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(id)}`)).text();
      expect(xml).to.include('<dc:title>Linked /p/');
    }
    expect(Object.fromEntries(hits)).to.deep.equal(Object.fromEntries(PATHS.map((path) => [path, 1])));
  });

  it('the data is fetched from payload_locator, the field publish requires, not from the schema\'s payload_schema_locator; without payload_locator from payload_schema_locator', async () => {
    // A linked document publish accepted could never be disseminated: OAI-PMH read only payload_schema_locator.
    const [doc] = nsdlDocs(1).map(({ resource_data: _data, ...rest }) => ({
      ...rest, doc_ID: 'linked-both', payload_placement: 'linked', payload_locator: `${base}/data/1`, payload_schema_locator: `${base}/schema.xsd`, payload_schema: ['oai_dc'],
    }));
    const published = await postJson(`${node.url}/publish`, { documents: [doc] }, PUBLISHER);
    expect(published.body.document_results).to.deep.equal([{ doc_ID: 'linked-both', OK: true }]);
    const xml = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=linked-both`)).text();
    expect(xml).to.include('<dc:title>Linked /data/1</dc:title>');
    expect(hits.get('/schema.xsd')).to.equal(undefined);
    // Stored as an implementation reading the spec's field table would store it: payload_schema_locator alone.
    const stamp = new Date().toISOString().replace('Z', '000Z');
    const legacy = { ...doc, _id: 'linked-schema-only', doc_ID: 'linked-schema-only', payload_locator: undefined, payload_schema_locator: `${base}/legacy/1`, publish_node: 't', publishing_node: 't', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp };
    await node.couch.use(node.names.resourceData).insert(JSON.parse(JSON.stringify(legacy)) as never);
    const served = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=linked-schema-only`)).text();
    expect(served).to.include('<dc:title>Linked /legacy/1</dc:title>');
  });
});

/** Every record of a ListRecords harvest of oai_dc, following resumption tokens. */
async function listRecords(node: TestNode): Promise<{ id: string; xml: string }[]> {
  const records: { id: string; xml: string }[] = [];
  let query = 'verb=ListRecords&metadataPrefix=oai_dc';
  for (let page = 0; page < 20; page += 1) {
    const xml = await (await fetch(`${node.url}/OAI-PMH?${query}`)).text();
    for (const [record] of xml.matchAll(/<record>[\s\S]*?<\/record>/g)) records.push({ id: /<identifier>([^<]*)<\/identifier>/.exec(record)?.[1] ?? '', xml: record });
    const token = /<resumptionToken[^>]*>([^<]*)<\/resumptionToken>/.exec(xml)?.[1];
    if (!token) return records;
    query = `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
  }
  throw new Error('the harvest did not end within 20 pages');
}
