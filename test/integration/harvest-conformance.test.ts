/**
 * What publishers and harvesters met that the spec says otherwise (issue 13, items 4-12): slice
 * tokens, the JSON prefix, oai_dc for every record, lists that end normally, ListIdentifiers and
 * ListRecords agreeing, schema-valid inline XML, URI doc_IDs, the getrecord echo, no one-record
 * pages. Every OAI-PMH response is validated with xmllint.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, type TestNode } from '../support/node.js';
import { fixture, nsdlDocs, type Doc } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';
import { nodeTimestamp } from '../../src/domain/timestamps.js';

const run = promisify(execFile);
const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const JSON_PREFIX = 'LR_JSON_0.10.0';
const PAGE = 10;
const URN_UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Result = { doc_ID: string; OK: boolean; error?: string };
const identifiers = (xml: string): string[] => [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1] as string);
const tokenOf = (xml: string): string | undefined => /<resumptionToken[^>]*>([^<]*)<\/resumptionToken>|<resumptionToken[^>]*\/>/.exec(xml)?.[1] ?? (/<resumptionToken[^>]*\/>/.test(xml) ? '' : undefined);
const errorCode = (xml: string): string | undefined => /<error code="([^"]+)"/.exec(xml)?.[1];

const dc = (title: string): string => `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title></oai_dc:dc>`;

/** A stored-form sample as a publisher submits it: without the node's fields and the (unverifiable) signature. */
function asSubmission(stored: Doc, id: string): Doc {
  const { digital_signature: _s, publishing_node: _p, publish_node: _q, create_timestamp: _c, update_timestamp: _u, node_timestamp: _n, _id, _rev, ...doc } = stored;
  void [_s, _p, _q, _c, _u, _n, _id, _rev];
  return { ...doc, doc_ID: id, resource_locator: doc.resource_locator || `http://example.org/samples/${id}` };
}

const LOM = `<lom xmlns="http://ltsc.ieee.org/xsd/LOM"><general><identifier><catalog>URI</catalog><entry>http://example.org/lom/1</entry></identifier>
<title><string language="en">Fractions with pizzas</string></title><language>en</language><description><string language="en">Adding fractions.</string></description>
<keyword><string language="en">fractions</string></keyword><keyword><string language="en">arithmetic</string></keyword></general>
<lifeCycle><contribute><role><source>LOMv1.0</source><value>author</value></role><entity>BEGIN:VCARD\nVERSION:3.0\nFN:Ada Teacher\nEND:VCARD</entity></contribute></lifeCycle>
<technical><format>text/html</format><location>http://example.org/lom/1.html</location></technical>
<educational><learningResourceType><source>LOMv1.0</source><value>exercise</value></learningResourceType></educational>
<rights><description><string language="en">CC BY 4.0</string></description></rights></lom>`;

const unescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
const dcValues = (xml: string, element: string): string[] => [...xml.matchAll(new RegExp(`<dc:${element}>([^<]*)</dc:${element}>`, 'g'))].map((m) => unescape(m[1] as string));

export function plainDoc(fields: Doc = {}): Doc {
  const { doc_ID: _id, ...doc } = nsdlDocs(1)[0] as Doc;
  void _id;
  return { ...doc, ...fields };
}

describe('harvest conformance (issue 13, items 4-12)', function () {
  this.timeout(120000);
  let node: TestNode;

  async function publish(documents: Doc[]): Promise<Result[]> {
    const results: Result[] = [];
    for (let i = 0; i < documents.length; i += 100) {
      const { status, body } = await postJson(`${node.url}/publish`, { documents: documents.slice(i, i + 100) }, AUTH);
      expect(status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      results.push(...(body.document_results as Result[]));
    }
    return results;
  }

  async function oai(query: string): Promise<{ status: number; text: string; type: string | null }> {
    const response = await fetch(`${node.url}/OAI-PMH?${query}`);
    return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
  }

  /** A whole OAI-PMH list, every page validated; the records per page. */
  async function harvest(verb: string, args: string, schema: 'official' | 'extension' = 'official'): Promise<{ ids: string[]; pages: string[]; sizes: number[] }> {
    const ids: string[] = [];
    const pages: string[] = [];
    const sizes: number[] = [];
    let query = `verb=${verb}&${args}`;
    for (let guard = 0; guard < 100; guard += 1) {
      const { text } = await oai(query);
      assertValidOai(text, schema);
      expect(errorCode(text), text.slice(0, 600)).to.equal(undefined);
      pages.push(text);
      const found = identifiers(text);
      ids.push(...found);
      sizes.push(found.length);
      const token = tokenOf(text);
      if (!token) break;
      query = `verb=${verb}&resumptionToken=${encodeURIComponent(token)}`;
    }
    return { ids, pages, sizes };
  }

  before(async () => {
    const data = { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE, id_limit: PAGE, metadataformats: [{ metadataFormat: { metadataPrefix: JSON_PREFIX } }] };
    node = await startTestNode({ nodeConfig: {
      services: { oai_pmh: { service_data: data }, harvest: { service_data: data }, slice: { service_data: { doc_limit: PAGE, id_limit: 100, flow_control: true } } },
    } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  describe('10. identifiers harvesters accept', () => {
    let id: string;
    before(async () => {
      const [result] = await publish([plainDoc({ keys: ['uri-id'] })]);
      expect(result?.OK, result?.error).to.equal(true);
      id = result?.doc_ID as string;
    });

    it('a generated doc_ID is a urn:uuid URI, served by every access service', async () => {
      expect(id).to.match(URN_UUID);
      const obtained = await getJson(`${node.url}/obtain?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
      expect((obtained.body.documents as { doc_ID: string }[])[0]?.doc_ID).to.equal(id);
      const record = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
      expect(record.body.OK).to.equal(true);
      const sliced = await getJson(`${node.url}/slice?any_tags=uri-id`);
      expect((sliced.body.documents as { doc_ID: string }[]).map((d) => d.doc_ID)).to.deep.equal([id]);
      const { text } = await oai(`verb=GetRecord&identifier=${encodeURIComponent(id)}&metadataPrefix=nsdl_dc`);
      assertValidOai(text, 'official');
      expect(identifiers(text)).to.deep.equal([id]);
    });

    it('HTTP::OAI takes it without --force; Identify advertises no oai-identifier scheme', async () => {
      const { stdout } = await run('oai_pmh', ['-X', 'GetRecord', '--identifier', id, '--metadataPrefix', 'nsdl_dc', `${node.url}/OAI-PMH`], { encoding: 'utf8', timeout: 60000 });
      expect(stdout).to.include(`identifier: ${id}`);
      const identify = await oai('verb=Identify');
      assertValidOai(identify.text, 'official');
      expect(identify.text).not.to.include('oai-identifier');
    });
  });

  describe('4. a slice continues from resumption_token alone', () => {
    it('the token alone gives the next pages; a token with other arguments is still refused', async () => {
      const docs = Array.from({ length: 2 * PAGE + 3 }, (_, i) => plainDoc({ doc_ID: `slice-${String(i).padStart(2, '0')}`, keys: ['slice-alone'] }));
      expect((await publish(docs)).every((r) => r.OK)).to.equal(true);
      const ids: string[] = [];
      let page = await getJson(`${node.url}/slice?any_tags=slice-alone`);
      const firstToken = page.body.resumption_token as string;
      for (let guard = 0; guard < 10; guard += 1) {
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        ids.push(...(page.body.documents as { doc_ID: string }[]).map((d) => d.doc_ID));
        if (typeof page.body.resumption_token !== 'string') break;
        page = await getJson(`${node.url}/slice?resumption_token=${encodeURIComponent(page.body.resumption_token)}`);
      }
      expect(ids).to.deep.equal(docs.map((doc) => doc.doc_ID));
      const other = await getJson(`${node.url}/slice?any_tags=other&resumption_token=${encodeURIComponent(firstToken)}`);
      expect(other.status).to.equal(400);
      expect(other.body).to.deep.equal({ OK: false, error: 'flow control error: the resumption token was issued for other request arguments' });
    });
  });

  describe('5. OAI-PMH with the JSON prefix answers as Basic Harvest', () => {
    it('GetRecord, ListRecords (with its tokens) and ListIdentifiers are application/json, the documents complete', async () => {
      const docs = Array.from({ length: PAGE + 2 }, (_, i) => plainDoc({ doc_ID: `json-${String(i).padStart(2, '0')}`, keys: ['json-prefix'] }));
      expect((await publish(docs)).every((r) => r.OK)).to.equal(true);
      const record = await oai(`verb=GetRecord&identifier=json-03&metadataPrefix=${JSON_PREFIX}`);
      expect(record.status).to.equal(200);
      expect(record.type).to.equal('application/json; charset=utf-8');
      const body = JSON.parse(record.text) as Record<string, unknown>;
      expect(body).to.include({ OK: true });
      expect(body.request).to.include({ verb: 'getrecord', identifier: 'json-03', by_doc_ID: 'F', by_resource_ID: 'T' });
      const direct = await getJson(`${node.url}/harvest/getrecord?request_ID=json-03`);
      expect(body.getrecord).to.deep.equal(direct.body.getrecord);
      const [first] = ((body.getrecord as { record: { resource_data: Doc }[] }).record);
      expect(first?.resource_data).to.include({ doc_ID: 'json-03', resource_data: docs[3]?.resource_data });
      // A list pages with resumption tokens that continue with the token alone, as OAI-PMH does.
      const ids: string[] = [];
      let query = `verb=ListIdentifiers&metadataPrefix=${JSON_PREFIX}`;
      for (let guard = 0; guard < 20; guard += 1) {
        const page = await oai(query);
        expect(page.type).to.equal('application/json; charset=utf-8');
        const answer = JSON.parse(page.text) as { OK: boolean; listidentifiers: { header: { identifier: string } }[]; resumption_token?: string | null };
        expect(answer.OK, page.text.slice(0, 300)).to.equal(true);
        ids.push(...answer.listidentifiers.map((item) => item.header.identifier));
        if (typeof answer.resumption_token !== 'string') break;
        query = `verb=ListIdentifiers&resumptionToken=${encodeURIComponent(answer.resumption_token)}`;
      }
      expect(ids).to.include.members(docs.map((doc) => doc.doc_ID as string));
      const missing = JSON.parse((await oai(`verb=GetRecord&identifier=nothing-here&metadataPrefix=${JSON_PREFIX}`)).text) as Record<string, unknown>;
      expect(missing).to.include({ OK: false, error: 'idDoesNotExist' });
      // Every other prefix stays XML.
      const xml = await oai('verb=GetRecord&identifier=json-03&metadataPrefix=nsdl_dc');
      expect(xml.type).to.match(/^text\/xml/);
      assertValidOai(xml.text, 'official');
    });
  });

  describe('6. every record is available as oai_dc', () => {
    const corpus = (): Doc[] => nsdlDocs(100).map((doc, i) => ({ ...doc, doc_ID: `dc-nsdl-${String(i).padStart(3, '0')}` }));
    before(async () => {
      const samples = [
        asSubmission(fixture<Doc>('signatures/rd3-lrmi-microdata-json-signed-inbloom.json'), 'dc-lrmi'),
        asSubmission(fixture<Doc>('corpus/paradata-0.json'), 'dc-comm-para'),
        asSubmission(fixture<Doc>('signatures/rd3-lr-paradata-1.0-as-stored-signed.json'), 'dc-lr-paradata'),
        plainDoc({ doc_ID: 'dc-lom', payload_schema: ['lom'], resource_data: LOM, resource_locator: 'http://example.org/lom/1' }),
        plainDoc({ doc_ID: 'dc-jsonld', payload_schema: ['LRMI'], resource_data: { '@context': 'http://schema.org/', '@type': 'CreativeWork', name: 'Volcanoes', keywords: ['geology', 'earth'], author: { '@type': 'Person', name: 'B. Author' }, inLanguage: 'en' } }),
      ];
      const results = await publish([...corpus(), ...samples]);
      expect(results.filter((r) => !r.OK)).to.deep.equal([]);
    });

    it('the nsdl_dc corpus is crosswalked: its DC elements, XSD-valid', async () => {
      for (const [i, doc] of corpus().entries()) {
        if (i % 9 !== 0) continue; // a sample of the corpus by GetRecord; the whole list is validated below
        const { text } = await oai(`verb=GetRecord&identifier=${doc.doc_ID as string}&metadataPrefix=oai_dc`);
        assertValidOai(text, 'official');
        const payload = doc.resource_data as string;
        const titles = [...payload.matchAll(/<dc:title[^>]*>([^<]*)<\/dc:title>/g)].map((m) => (m[1] as string).replace(/\s+/g, ' ').trim());
        expect(dcValues(text, 'title'), doc.doc_ID as string).to.include.members(titles.filter((t) => t !== '' && !/[&<]/.test(t)));
        expect(dcValues(text, 'identifier')).to.include(doc.resource_locator);
      }
    });

    it('IEEE LOM, LRMI microdata and schema.org JSON-LD are crosswalked; other payloads get the envelope record', async () => {
      const get = async (id: string): Promise<string> => {
        const { text } = await oai(`verb=GetRecord&identifier=${id}&metadataPrefix=oai_dc`);
        assertValidOai(text, 'official');
        expect(errorCode(text), text.slice(0, 500)).to.equal(undefined);
        return text;
      };
      const lom = await get('dc-lom');
      expect(dcValues(lom, 'title')).to.deep.equal(['Fractions with pizzas']);
      expect(dcValues(lom, 'subject')).to.deep.equal(['fractions', 'arithmetic']);
      expect(dcValues(lom, 'creator')).to.deep.equal(['Ada Teacher']);
      expect(dcValues(lom, 'type')).to.deep.equal(['exercise']);
      expect(dcValues(lom, 'identifier')).to.include.members(['http://example.org/lom/1', 'http://example.org/lom/1.html']);
      const lrmi = await get('dc-lrmi');
      expect(dcValues(lrmi, 'title')).to.deep.equal(['Recurso 2']);
      expect(dcValues(lrmi, 'language')).to.deep.equal(['es-ES']);
      const jsonld = await get('dc-jsonld');
      expect(dcValues(jsonld, 'title')).to.deep.equal(['Volcanoes']);
      expect(dcValues(jsonld, 'subject')).to.deep.equal(['geology', 'earth']);
      expect(dcValues(jsonld, 'creator')).to.deep.equal(['B. Author']);
      for (const id of ['dc-comm-para', 'dc-lr-paradata']) {
        const envelope = await get(id);
        const stored = (await getJson(`${node.url}/obtain?request_ID=${id}&by_doc_ID=T`)).body.documents as { document: Doc[] }[];
        const doc = stored[0]?.document[0] as Doc;
        expect(dcValues(envelope, 'identifier')).to.deep.equal([doc.resource_locator]);
        expect(dcValues(envelope, 'subject')).to.deep.equal((doc.keys as string[]).map((k) => k.replace(/\s+/g, ' ').trim()).filter((k, i, all) => k !== '' && all.indexOf(k) === i));
        expect(dcValues(envelope, 'type')).to.deep.equal([doc.resource_data_type]);
        expect(dcValues(envelope, 'date')).to.deep.equal([(doc.node_timestamp as string).slice(0, 10)]);
        expect(dcValues(envelope, 'contributor')).to.include((doc.identity as Doc).submitter);
      }
    });

    it('ListRecords oai_dc lists every record, each page XSD-valid; ListMetadataFormats with an identifier lists oai_dc', async () => {
      const records = await harvest('ListRecords', 'metadataPrefix=oai_dc');
      const identifiersOf = await harvest('ListIdentifiers', 'metadataPrefix=oai_dc');
      expect(identifiersOf.ids).to.deep.equal(records.ids);
      for (const id of ['dc-nsdl-000', 'dc-nsdl-099', 'dc-lom', 'dc-lrmi', 'dc-jsonld', 'dc-comm-para', 'dc-lr-paradata', 'json-00', 'slice-00']) expect(records.ids).to.include(id);
      for (const id of ['dc-lrmi', 'dc-lr-paradata', 'dc-nsdl-001']) {
        const { text } = await oai(`verb=ListMetadataFormats&identifier=${id}`);
        // Formats without a known schema (schema.org, LRMI) are listed under the extension schema.
        assertValidOai(text, id === 'dc-lrmi' ? 'extension' : 'official');
        expect(text).to.include('<metadataPrefix>oai_dc</metadataPrefix><schema>http://www.openarchives.org/OAI/2.0/oai_dc.xsd</schema>');
      }
    });
  });

  describe('6b. a payload said to be oai_dc that is no oai_dc record', () => {
    const OAI_DC = 'xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"';
    const payloads: [string, string][] = [
      ['notdc-bogus', `<oai_dc:dc ${OAI_DC}><dc:title>Kept title</dc:title><dc:bogus>x</dc:bogus></oai_dc:dc>`],
      ['notdc-root', '<foo:bar xmlns:foo="urn:foo"><foo:t>x</foo:t></foo:bar>'],
      ['notdc-plain', '<dc><title>no namespace</title></dc>'],
      ['notdc-nested', `<oai_dc:dc ${OAI_DC}><dc:title>Outer <b xmlns="urn:b">bold</b></dc:title></oai_dc:dc>`],
      ['notdc-text', `<oai_dc:dc ${OAI_DC}>stray text<dc:title>T</dc:title></oai_dc:dc>`],
      // White space, but in a CDATA section, which libxml2's validator refuses in element-only content.
      ['notdc-cdata', `<oai_dc:dc ${OAI_DC}><![CDATA[ ]]><dc:title>T</dc:title></oai_dc:dc>`],
    ];
    const fine = `<oai_dc:dc ${OAI_DC} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
  <dc:title xml:lang="en-GB">Fine</dc:title><!-- a comment --><?keep it?><dc:subject><![CDATA[o]]>k</dc:subject>
</oai_dc:dc>`;

    it('is served as oai_dc built from its DC elements (or its envelope), each response valid against OAI-PMH.xsd; a real one as it is', async () => {
      // Served as it was, one such payload made every response holding it invalid (an audit's finding).
      const results = await publish([...payloads, ['notdc-fine', fine] as [string, string]].map(([id, data]) => plainDoc({ doc_ID: id, payload_schema: ['oai_dc'], resource_data: data, resource_locator: `http://example.org/${id}` })));
      expect(results.filter((r) => !r.OK)).to.deep.equal([]);
      for (const [id] of payloads) {
        const { text } = await oai(`verb=GetRecord&identifier=${id}&metadataPrefix=oai_dc`);
        expect(errorCode(text), text.slice(0, 500)).to.equal(undefined);
        assertValidOai(text, 'official');
        expect(dcValues(text, 'identifier'), id).to.include(`http://example.org/${id}`);
      }
      expect(dcValues((await oai('verb=GetRecord&identifier=notdc-bogus&metadataPrefix=oai_dc')).text, 'title')).to.deep.equal(['Kept title']);
      const kept = (await oai('verb=GetRecord&identifier=notdc-fine&metadataPrefix=oai_dc')).text;
      assertValidOai(kept, 'official');
      expect(kept).to.include('<dc:title xml:lang="en-GB">Fine</dc:title>');
      // The check at publish noted which payloads are oai_dc records; the others are not noted.
      const stored = async (id: string): Promise<Doc> => await node.couch.use(node.names.resourceData).get(id) as unknown as Doc;
      expect(((await stored('notdc-fine')).node_xml_checked as Doc).oai_dc).to.equal(true);
      for (const [id] of payloads) expect(((await stored(id)).node_xml_checked as Doc | undefined)?.oai_dc, id).to.equal(undefined);
      // And the pages that hold them (harvest validates each page against OAI-PMH.xsd).
      expect((await harvest('ListRecords', 'metadataPrefix=oai_dc')).ids).to.include.members(payloads.map(([id]) => id));
    });

    it('a record of the check written before it noted oai_dc: the payload is looked at when it is emitted', async () => {
      for (const id of ['notdc-bogus', 'notdc-fine']) {
        const doc = await node.couch.use(node.names.resourceData).get(id) as unknown as Doc & { _id: string; _rev: string };
        const record = { ...(doc.node_xml_checked as Doc) };
        delete record.oai_dc;
        await node.couch.use(node.names.resourceData).insert({ ...doc, node_xml_checked: record } as never);
      }
      const bogus = (await oai('verb=GetRecord&identifier=notdc-bogus&metadataPrefix=oai_dc')).text;
      assertValidOai(bogus, 'official');
      expect(bogus).to.not.include('dc:bogus');
      const fineAgain = (await oai('verb=GetRecord&identifier=notdc-fine&metadataPrefix=oai_dc')).text;
      expect(fineAgain).to.include('<dc:title xml:lang="en-GB">Fine</dc:title>');
    });
  });

  describe('11. the getrecord request echo', () => {
    it('echoes both flags in one type, the spec\'s T/F, whatever spelling was sent or defaulted: the lookup made', async () => {
      const [result] = await publish([plainDoc({ doc_ID: 'echo-1' })]);
      expect(result?.OK).to.equal(true);
      const byDoc = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1&by_doc_ID=true`);
      // by_doc_ID true makes by_resource_ID false by default (both true is badArgument, rule 2).
      expect(byDoc.body.request).to.include({ identifier: 'echo-1', by_doc_ID: 'T', by_resource_ID: 'F' });
      const spelled = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1&by_doc_ID=T&by_resource_ID=f`);
      expect(spelled.body.request).to.include({ by_doc_ID: 'T', by_resource_ID: 'F' });
      const posted = await postJson(`${node.url}/harvest/getrecord`, { request_ID: 'echo-1', by_doc_ID: true });
      expect(posted.body.request).to.include({ by_doc_ID: 'T', by_resource_ID: 'F' });
      const sent = byDoc.body.request as { by_doc_ID: string; by_resource_ID: string };
      const echoed = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1&by_doc_ID=${sent.by_doc_ID}&by_resource_ID=${sent.by_resource_ID}`);
      expect(echoed.body.OK, 'the echoed request is one the node answers').to.equal(true);
      const defaults = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1`);
      expect(defaults.body.request).to.include({ by_doc_ID: 'F', by_resource_ID: 'T' });
    });

    it('looks a doc_ID up as a resource locator only when a flag says so: no fallback to the doc_ID then', async () => {
      const [result] = await publish([plainDoc({ doc_ID: 'echo-2' })]);
      expect(result?.OK).to.equal(true);
      // Neither flag: the locator, then the doc_ID (what a standard OAI-PMH harvester sends).
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=echo-2`)).body.OK).to.equal(true);
      for (const flags of ['by_doc_ID=F', 'by_resource_ID=T', 'by_doc_ID=F&by_resource_ID=T']) {
        expect((await getJson(`${node.url}/harvest/getrecord?request_ID=echo-2&${flags}`)).body, flags).to.include({ OK: false, error: 'idDoesNotExist' });
        const oai = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=echo-2&${flags}`)).text();
        expect(oai, flags).to.contain('code="idDoesNotExist"');
      }
    });

    it('both flags false (by_resource_ID=F, by_doc_ID absent or F): the IDs are doc_IDs, and the echo says so', async () => {
      const locator = 'http://example.org/echo-3/resource';
      const [result] = await publish([plainDoc({ doc_ID: 'echo-3', resource_locator: locator })]);
      expect(result?.OK).to.equal(true);
      for (const flags of ['by_resource_ID=F', 'by_resource_ID=false', 'by_resource_ID=F&by_doc_ID=F', 'by_doc_ID=f&by_resource_ID=false']) {
        const byDoc = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-3&${flags}`);
        expect(byDoc.body, flags).to.include({ OK: true });
        expect((byDoc.body.getrecord as { record: { header: { identifier: string } }[] }).record.map((r) => r.header.identifier), flags).to.deep.equal(['echo-3']);
        expect(byDoc.body.request, flags).to.include({ identifier: 'echo-3', by_doc_ID: 'T', by_resource_ID: 'F' });
        // The client said the ID is no resource locator: a locator is not looked up as one.
        const byLocator = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(locator)}&${flags}`);
        expect(byLocator.body, flags).to.include({ OK: false, error: 'idDoesNotExist' });
        expect(byLocator.body.request, flags).to.include({ by_doc_ID: 'T', by_resource_ID: 'F' });
        const found = await oai(`verb=GetRecord&metadataPrefix=oai_dc&identifier=echo-3&${flags}`);
        assertValidOai(found.text, 'extension');
        expect(identifiers(found.text), flags).to.deep.equal(['echo-3']);
        expect(errorCode((await oai(`verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(locator)}&${flags}`)).text), flags).to.equal('idDoesNotExist');
      }
      const posted = await postJson(`${node.url}/harvest/getrecord`, { request_ID: 'echo-3', by_resource_ID: false });
      expect(posted.body).to.include({ OK: true });
      expect(posted.body.request).to.include({ by_doc_ID: 'T', by_resource_ID: 'F' });
      // by_doc_ID=F alone leaves by_resource_ID at its default, TRUE: the locator.
      const locatorOnly = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(locator)}&by_doc_ID=F`);
      expect(locatorOnly.body).to.include({ OK: true });
      expect(locatorOnly.body.request).to.include({ by_doc_ID: 'F', by_resource_ID: 'T' });
    });
  });
  /** Stores documents as an older node version did (publish now refuses what they hold), after everything published so far. */
  async function storeLegacy(format: string, entries: [string, unknown][]): Promise<void> {
    // Stamped after what was published, and not in the future (a list ends at the time of its first page).
    await new Promise((resolve) => setTimeout(resolve, 20 + entries.length));
    const now = Date.now();
    const docs = entries.map(([id, data], i) => {
      const stamp = nodeTimestamp(new Date(now - entries.length + i));
      return { ...plainDoc({ payload_schema: [format], resource_data: data }), _id: id, doc_ID: id, publish_node: 't', publishing_node: 't', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp };
    });
    await node.couch.use(node.names.resourceData).bulk({ docs: docs as never[] });
  }

  describe('7. a list never ends in an error half-way', () => {
    it('100 records and 3 whose metadata cannot be emitted: every page is valid, the list ends normally', async () => {
      const good = Array.from({ length: 100 }, (_, i) => plainDoc({ doc_ID: `tail-${String(i).padStart(3, '0')}`, payload_schema: ['tail_fmt'], resource_data: dc(`tail ${i}`) }));
      expect((await publish(good)).every((r) => r.OK)).to.equal(true);
      await storeLegacy('tail_fmt', [['tail-broken-1', '<broken>'], ['tail-broken-2', '<broken>'], ['tail-broken-3', '<broken>']]);
      const records = await harvest('ListRecords', 'metadataPrefix=tail_fmt');
      expect(records.ids).to.have.length(100);
      expect(new Set(records.ids)).to.deep.equal(new Set(good.map((doc) => doc.doc_ID)));
      expect(records.pages.at(-1)).to.match(/<resumptionToken[^>]*completeListSize="100"[^>]*\/>|<resumptionToken[^>]*completeListSize="100"[^>]*><\/resumptionToken>/);
      const headers = await harvest('ListIdentifiers', 'metadataPrefix=tail_fmt');
      expect(headers.ids).to.deep.equal(records.ids);
    });

    it('records mostly left out: a request reads at most 2,000 rows, answers what it found with a token, and logs one line', async () => {
      await storeLegacy('sparse_fmt', Array.from({ length: 4500 }, (_, i) => [`sparse-broken-${String(i).padStart(4, '0')}`, '<broken>'] as [string, unknown]));
      const good = Array.from({ length: 3 }, (_, i) => plainDoc({ doc_ID: `sparse-good-${i}`, payload_schema: ['sparse_fmt'], resource_data: dc(`sparse ${i}`) }));
      expect((await publish(good)).every((r) => r.OK)).to.equal(true);
      const logged = node.logs.length;
      const first = await oai('verb=ListIdentifiers&metadataPrefix=sparse_fmt');
      expect(errorCode(first.text), first.text.slice(0, 500)).to.equal(undefined);
      assertValidOai(first.text, 'extension'); // an incomplete part with no record yet: the extension allows it
      expect(identifiers(first.text)).to.deep.equal([]);
      expect(tokenOf(first.text)).to.be.a('string').and.not.equal('');
      const lines = node.logs.slice(logged).filter((line) => line.includes('left out'));
      expect(lines).to.have.length(1);
      expect((JSON.parse(lines[0] as string) as { left_out: number }).left_out).to.be.within(2000, 2000 + PAGE + 2);
      const ids: string[] = [];
      let page = first.text;
      for (let guard = 0; guard < 10; guard += 1) {
        ids.push(...identifiers(page));
        const token = tokenOf(page);
        if (!token) break;
        page = (await oai(`verb=ListIdentifiers&resumptionToken=${encodeURIComponent(token)}`)).text;
      }
      expect(ids).to.deep.equal(['sparse-good-0', 'sparse-good-1', 'sparse-good-2']);
    });

    it('no record of a format can be emitted, past the 2,000-row budget: the list ends in noRecordsMatch, never completeListSize="0"', async () => {
      // Its last part said <resumptionToken completeListSize="0"/>, which OAI-PMH.xsd refuses.
      await storeLegacy('void_fmt', Array.from({ length: 2100 }, (_, i) => [`void-broken-${String(i).padStart(4, '0')}`, '<broken>'] as [string, unknown]));
      for (const verb of ['ListIdentifiers', 'ListRecords']) {
        let page = (await oai(`verb=${verb}&metadataPrefix=void_fmt`)).text;
        const answers: string[] = [];
        for (let guard = 0; guard < 10; guard += 1) {
          answers.push(page);
          expect(page, verb).to.not.match(/completeListSize="0"/);
          const token = tokenOf(page);
          if (!token) break;
          page = (await oai(`verb=${verb}&resumptionToken=${encodeURIComponent(token)}`)).text;
        }
        expect(answers.flatMap(identifiers), verb).to.deep.equal([]);
        const last = answers.at(-1) as string;
        expect(errorCode(last), last.slice(0, 400)).to.equal('noRecordsMatch');
        assertValidOai(last, 'official');
      }
    });

    it('records deleted after the token was issued: the resumed list ends with no record and an empty token, schema-valid', async () => {
      const docs = Array.from({ length: PAGE + 2 }, (_, i) => plainDoc({ doc_ID: `gone-${String(i).padStart(2, '0')}`, payload_schema: ['gone_fmt'], resource_data: dc(`gone ${i}`) }));
      expect((await publish(docs)).every((r) => r.OK)).to.equal(true);
      const tokens = new Map<string, string>();
      for (const verb of ['ListRecords', 'ListIdentifiers']) {
        const first = await oai(`verb=${verb}&metadataPrefix=gone_fmt`);
        assertValidOai(first.text, 'official');
        expect(identifiers(first.text)).to.have.length(PAGE);
        const token = tokenOf(first.text) as string;
        expect(token).to.be.a('string').and.not.equal('');
        tokens.set(verb, token);
      }
      const removal = await postJson(`${node.url}/delete`, { request_IDs: ['gone-10', 'gone-11'] }, AUTH);
      expect((removal.body.document_results as Result[]).every((r) => r.OK)).to.equal(true);
      for (const [verb, token] of tokens) {
        const rest = await oai(`verb=${verb}&resumptionToken=${encodeURIComponent(token)}`);
        expect(errorCode(rest.text), rest.text).to.equal(undefined);
        assertValidOai(rest.text, 'extension');
        expect(identifiers(rest.text)).to.deep.equal([]);
        expect(tokenOf(rest.text)).to.equal('');
      }
    });
  });

  describe('8. ListIdentifiers and ListRecords agree; publish checks inline XML', () => {
    it('publish refuses inline XML that is not well-formed, holds characters XML forbids, or is no string under an XML format', async () => {
      const results = await publish([
        plainDoc({ doc_ID: 'bad-1', payload_schema: ['tail_fmt'], resource_data: '<broken>' }),
        plainDoc({ doc_ID: 'bad-2', payload_schema: ['tail_fmt'], resource_data: dc('control \u0001 character') }),
        plainDoc({ doc_ID: 'bad-3', payload_schema: ['nsdl_dc'], resource_data: { title: 'a JSON object' } }),
        plainDoc({ doc_ID: 'bad-4', payload_schema: ['nsdl_dc'], resource_data: 'plain text' }),
        plainDoc({ doc_ID: 'fine-1', payload_schema: ['LR Paradata 1.0'], resource_data: { activity: { verb: 'viewed' } } }),
        plainDoc({ doc_ID: 'fine-2', payload_schema: ['tail_fmt'], resource_data: dc('fine') }),
      ]);
      expect(results.map((r) => r.OK)).to.deep.equal([false, false, false, false, true, true]);
      for (const result of results.slice(0, 4)) expect(result.error, result.doc_ID).to.match(/^invalid document: /);
      expect(await getJson(`${node.url}/obtain?request_ID=bad-1&by_doc_ID=T`)).to.have.nested.property('body.documents[0].document', null);
    });

    it('stored records whose metadata cannot be emitted are left out of both verbs alike', async () => {
      const good = Array.from({ length: 5 }, (_, i) => plainDoc({ doc_ID: `agree-${i}`, payload_schema: ['agree_fmt'], resource_data: dc(`agree ${i}`) }));
      expect((await publish(good)).every((r) => r.OK)).to.equal(true);
      await storeLegacy('agree_fmt', [['agree-ctl', dc('control \u0001')], ['agree-broken', '<a><b></a>'], ['agree-json', { title: 'JSON under an XML format' }]]);
      // JSON under the format is served as it is (lr:text_resource_data, the extension schema); XML that is broken or holds a control character is not.
      const records = await harvest('ListRecords', 'metadataPrefix=agree_fmt', 'extension');
      const headers = await harvest('ListIdentifiers', 'metadataPrefix=agree_fmt');
      expect([...records.ids].sort()).to.deep.equal(['agree-0', 'agree-1', 'agree-2', 'agree-3', 'agree-4', 'agree-json']);
      expect(headers.ids).to.deep.equal(records.ids);
      expect(records.pages.join('')).to.include('<lr:text_resource_data xmlns:lr="http://www.learningregistry.org/OAI/2.0/" type="json">{&quot;title&quot;:&quot;JSON under an XML format&quot;}</lr:text_resource_data>');
    });
  });

  describe('9. inline XML in no namespace keeps responses valid', () => {
    it('is served wrapped in lr:xml_resource_data under the extension schema, by GetRecord and ListRecords', async () => {
      const [result] = await publish([plainDoc({ doc_ID: 'plain-1', payload_schema: ['plain_xml'], resource_data: '<record><title>plain</title></record>' })]);
      expect(result?.OK, result?.error).to.equal(true);
      for (const query of ['verb=GetRecord&identifier=plain-1&metadataPrefix=plain_xml', 'verb=ListRecords&metadataPrefix=plain_xml']) {
        const { text } = await oai(query);
        assertValidOai(text, 'extension');
        expect(text).to.include('<metadata><lr:xml_resource_data xmlns:lr="http://www.learningregistry.org/OAI/2.0/"><record xmlns=""><title>plain</title></record></lr:xml_resource_data></metadata>');
      }
    });

    it('resource data that is not XML is served as it is in lr:text_resource_data; ListMetadataFormats gives every format a schema', async () => {
      const json = { '@type': 'CreativeWork', name: 'Fractions & <ratios>' };
      const results = await publish([
        plainDoc({ doc_ID: 'json-1', payload_schema: ['json_fmt'], payload_schema_locator: 'http://schema.org/CreativeWork', resource_data: json }),
        plainDoc({ doc_ID: 'text-1', payload_schema: ['lrmi_text'], payload_schema_locator: undefined, resource_data: "{'items': [{'type': ['http://schema.org/CreativeWork']}]}" }),
      ]);
      expect(results.map((r) => r.OK)).to.deep.equal([true, true]);
      const record = await oai('verb=GetRecord&identifier=json-1&by_doc_ID=T&metadataPrefix=json_fmt');
      assertValidOai(record.text, 'extension');
      const text = /<lr:text_resource_data[^>]*type="json">([^<]*)<\/lr:text_resource_data>/.exec(record.text)?.[1] ?? '';
      expect(JSON.parse(text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'))).to.deep.equal(json);
      const list = await harvest('ListRecords', 'metadataPrefix=lrmi_text', 'extension');
      expect(list.ids).to.deep.equal(['text-1']);
      expect(list.pages[0]).to.include('<lr:text_resource_data xmlns:lr="http://www.learningregistry.org/OAI/2.0/" type="text">{\'items\': [{\'type\': [\'http://schema.org/CreativeWork\']}]}</lr:text_resource_data>');
      const formats = await oai('verb=ListMetadataFormats');
      assertValidOai(formats.text, 'extension');
      const described = [...formats.text.matchAll(/<metadataFormat><metadataPrefix>([^<]*)<\/metadataPrefix><schema>([^<]*)<\/schema>/g)].map((m) => [m[1], m[2]]);
      expect(described.length).to.equal((formats.text.match(/<metadataFormat>/g) ?? []).length);
      expect(described).to.deep.include.members([['json_fmt', 'http://schema.org/CreativeWork'], ['lrmi_text', `${node.url}/schemas/OAI-PMH-LR.xsd`]]);
    });

    it('an OAI-PMH <metadata> wrapper around the payload (the LR paradata sample) is unwrapped: its content is the record', async () => {
      const { _id: _ignored, _rev: _rev, ...paradata } = fixture<Doc>('corpus/paradata-0.json');
      void _ignored; void _rev;
      const [result] = await publish([{ ...paradata, doc_ID: 'paradata-wrapped' }]);
      expect(result?.OK, result?.error).to.equal(true);
      for (const query of ['verb=GetRecord&identifier=paradata-wrapped&metadataPrefix=oai_paradata', 'verb=ListRecords&metadataPrefix=oai_paradata']) {
        const { text } = await oai(query);
        assertValidOai(text, 'official');
        expect(text).to.include('<metadata><commParadata xmlns="http://ns.nsdl.org/ncs/comm_para"');
      }
    });
  });

  describe('12. no page of a single record', () => {
    it('a record that would be alone on the next page is included in this one', async () => {
      const docs = Array.from({ length: 2 * PAGE + 1 }, (_, i) => plainDoc({ doc_ID: `one-${String(i).padStart(2, '0')}`, payload_schema: ['one_fmt'], resource_data: dc(`one ${i}`) }));
      expect((await publish(docs.slice(0, PAGE + 1))).every((r) => r.OK)).to.equal(true);
      for (const verb of ['ListRecords', 'ListIdentifiers']) {
        const whole = await harvest(verb, 'metadataPrefix=one_fmt');
        expect(whole.sizes, verb).to.deep.equal([PAGE + 1]);
        expect(tokenOf(whole.pages[0] as string)).to.equal(undefined);
      }
      expect((await publish(docs.slice(PAGE + 1))).every((r) => r.OK)).to.equal(true);
      for (const verb of ['ListRecords', 'ListIdentifiers']) {
        const whole = await harvest(verb, 'metadataPrefix=one_fmt');
        expect(whole.sizes, verb).to.deep.equal([PAGE, PAGE + 1]);
        expect(whole.ids).to.have.length(2 * PAGE + 1);
      }
    });
  });
});
