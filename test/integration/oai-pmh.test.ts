/**
 * OAI-PMH 2.0 (spec "OAI-PMH Harvest (XML)"): every verb, error and extension rule, each
 * response validated by xmllint against the official schema or the node's extension schema.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';

type Doc = Record<string, unknown>;
const JSON_PREFIX = 'LR_JSON_0.10.0';
const oaiData = (extra: Doc = {}): Doc => ({ granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 5, id_limit: 5, metadataformats: [{ metadataFormat: { metadataPrefix: JSON_PREFIX } }], ...extra });
const stamp = (second: number): string => `2021-06-01T00:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.000000Z`;

export function oaiDc(title: string): string {
  return `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd"><dc:title>${title}</dc:title></oai_dc:dc>`;
}

function stored(id: string, second: number, fields: Doc): Doc {
  const ts = stamp(second);
  return {
    _id: id, doc_ID: id, doc_type: 'resource_data', doc_version: '0.23.0', active: true, TOS: { submission_TOS: 'http://example.org/tos' },
    identity: { submitter: 'tester', submitter_type: 'agent' }, payload_placement: 'inline', payload_schema: ['oai_dc'],
    resource_locator: `http://example.org/oai/${id}`, publish_node: 'test', publishing_node: 'test',
    create_timestamp: ts, update_timestamp: ts, node_timestamp: ts, ...fields,
  };
}

/** 12 oai_dc records, 4 nsdl_dc, deleted states, and the placements and failures of emission. */
async function loadOaiCorpus(node: TestNode, linkedUrl: string): Promise<void> {
  const docs: Doc[] = [];
  for (let i = 0; i < 12; i += 1) docs.push(stored(`dc-${String(i).padStart(2, '0')}`, i, { resource_data: oaiDc(`Record ${i} &amp; more`) }));
  nsdlDocs(4).forEach((doc, i) => docs.push(stored(`nsdl-${i}`, 20 + i, { ...doc, _id: `nsdl-${i}`, doc_ID: `nsdl-${i}` })));
  docs.push(stored('dc-prolog', 30, { resource_data: `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE oai_dc:dc [<!ELEMENT x ANY>]>\n${oaiDc('With a prolog')}` }));
  docs.push(stored('dc-broken', 31, { resource_data: '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"><dc:title>unclosed</oai_dc:dc>' }));
  docs.push(stored('dc-linked', 32, { payload_placement: 'linked', payload_schema_locator: linkedUrl, resource_data: undefined }));
  docs.push(stored('dc-attached', 33, { payload_placement: 'attachment', resource_data: undefined, _attachments: { 'record.xml': { content_type: 'application/xml', data: Buffer.from(oaiDc('Attached')).toString('base64') } } }));
  docs.push(stored('dc-marked', 40, { resource_data: oaiDc('marked'), node_deleted: stamp(40) }));
  docs.push({ _id: 'dc-tomb', doc_ID: 'dc-tomb', doc_type: 'tombstone', payload_schema: ['oai_dc'], resource_locator: 'http://example.org/oai/shared', replaced_by: { doc_ID: 'dc-00' }, node_timestamp: stamp(41) });
  docs.push(stored('del-doc', 42, { payload_placement: 'none', payload_schema: undefined, resource_locator: undefined, resource_data: undefined, replaces: ['dc-tomb'] }));
  docs.push(stored('dc-shared', 43, { resource_locator: 'http://example.org/oai/shared', resource_data: oaiDc('Shared locator') }));
  await node.couch.use(node.names.resourceData).bulk({ docs: docs as never[] });
}

async function linkedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/xml' }); res.end(oaiDc('Linked')); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/record.xml`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function oai(node: TestNode, query: string, method: 'GET' | 'POST' = 'GET'): Promise<{ status: number; xml: string; type: string | null }> {
  const response = method === 'GET'
    ? await fetch(`${node.url}/OAI-PMH?${query}`)
    : await fetch(`${node.url}/OAI-PMH`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: query });
  return { status: response.status, xml: await response.text(), type: response.headers.get('content-type') };
}

const errorCode = (xml: string): string | undefined => /<error code="([^"]+)"/.exec(xml)?.[1];
const requestElement = (xml: string): string => /<request[^>]*>[^<]*<\/request>/.exec(xml)?.[0] ?? '';
const identifiers = (xml: string): string[] => [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1] as string);
const tokenOf = (xml: string): string | undefined => /<resumptionToken[^>]*>([^<]*)<\/resumptionToken>/.exec(xml)?.[1];

async function harvest(node: TestNode, verb: string, args: string): Promise<{ ids: string[]; pages: string[] }> {
  const ids: string[] = [];
  const pages: string[] = [];
  let query = `verb=${verb}&${args}`;
  for (let guard = 0; guard < 50; guard += 1) {
    const { xml } = await oai(node, query);
    assertValidOai(xml, 'official');
    pages.push(xml);
    ids.push(...identifiers(xml));
    const token = tokenOf(xml);
    if (!token) break;
    query = `verb=${verb}&resumptionToken=${encodeURIComponent(token)}`;
  }
  return { ids, pages };
}

describe('OAI-PMH 2.0', () => {
  let node: TestNode;
  let linked: { url: string; close(): Promise<void> };
  before(async () => {
    linked = await linkedServer();
    node = await startTestNode({ nodeConfig: { policy: { deleted_data_policy: 'persistent', allow_private_fetch: true, node_admin_identity: undefined }, node: { node_admin_identity: 'OAI Admin <oai-admin@example.org>' }, services: { oai_pmh: { service_data: oaiData() } } } });
    await loadOaiCorpus(node, linked.url);
  });
  after(async () => { await node.stop(); await linked.close(); });

  describe('Identify, ListSets, errors of the envelope', () => {
    it('Identify: baseURL, earliestDatestamp, deletedRecord from the policy, second granularity, adminEmail, no oai-identifier (headers carry doc_IDs)', async () => {
      const { status, xml, type } = await oai(node, 'verb=Identify');
      expect(status).to.equal(200);
      expect(type).to.match(/^text\/xml/);
      assertValidOai(xml, 'official');
      expect(xml).to.include(`<baseURL>${node.publicUrl}/OAI-PMH</baseURL>`);
      expect(xml).to.include('<protocolVersion>2.0</protocolVersion>');
      expect(xml).to.include('<earliestDatestamp>2021-06-01T00:00:00Z</earliestDatestamp>');
      expect(xml).to.include('<deletedRecord>persistent</deletedRecord>');
      expect(xml).to.include('<granularity>YYYY-MM-DDThh:mm:ssZ</granularity>');
      expect(xml).to.include('<adminEmail>oai-admin@example.org</adminEmail>');
      expect(xml).not.to.include('<oai-identifier');
      expect(xml).to.match(/<responseDate>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/responseDate>/);
      expect(requestElement(xml)).to.equal(`<request verb="Identify">${node.publicUrl}/OAI-PMH</request>`);
    });

    it('POST with a form body answers as GET does', async () => {
      const { xml } = await oai(node, 'verb=Identify', 'POST');
      assertValidOai(xml, 'official');
      expect(xml).to.include('<Identify>');
      const listed = await oai(node, 'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2021-06-01T00:00:02Z&until=2021-06-01T00:00:03Z', 'POST');
      expect(identifiers(listed.xml)).to.deep.equal(['dc-02', 'dc-03']);
    });

    // The protocol has no error code for a method: the JSON services' body here contradicted the
    // endpoint's own error forms (an audit's finding).
    it('another method than GET, HEAD or POST: a plain-text 405 with Allow, not a JSON body; OPTIONS says what is allowed', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const response = await fetch(`${node.url}/OAI-PMH?verb=Identify`, { method, body: 'verb=Identify' });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get('allow')).to.equal('GET, HEAD, POST');
        expect(response.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
        expect(await response.text()).to.equal(`${method} is not allowed on /OAI-PMH: OAI-PMH requests are GET or POST.\n`);
      }
      const options = await fetch(`${node.url}/OAI-PMH`, { method: 'OPTIONS' });
      expect(options.status).to.equal(204);
      expect(options.headers.get('allow')).to.equal('GET, HEAD, POST');
      const head = await fetch(`${node.url}/OAI-PMH?verb=Identify`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.match(/^text\/xml/);
    });

    // Node's parser refuses these before any route; the request line, when the refused chunk
    // holds it, still says whether they were sent to /OAI-PMH (audit-spec finding 5).
    it('a request Node refuses (431 headers over 16 KiB, 400 not HTTP) to /OAI-PMH: plain text, not the JSON body; elsewhere JSON', async () => {
      const { port, hostname } = new URL(node.url);
      /** Writes the parts over one real socket, `gap` ms apart, and reads the whole answer. */
      const raw = (parts: string[], gap = 0): Promise<string> => new Promise((resolve, reject) => {
        const socket = net.connect(Number(port), hostname, async () => {
          for (const part of parts) {
            if (socket.writable) socket.write(part);
            await new Promise((done) => setTimeout(done, gap));
          }
        });
        let answer = '';
        socket.on('data', (chunk: Buffer) => { answer += chunk.toString('utf8'); });
        socket.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error); });
        socket.on('close', () => resolve(answer));
      });
      const parse = (answer: string): { status: string; type: string | undefined; body: string } => {
        const [head = '', body = ''] = answer.split('\r\n\r\n', 2);
        return { status: head.split('\r\n')[0] ?? '', type: /^content-type: (.*)$/im.exec(head)?.[1], body };
      };
      const long = 'x'.repeat(20000);
      const oaiTooLarge = `GET /OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=${long} HTTP/1.1\r\nHost: a\r\n\r\n`;
      const cases: [string, string[], number, string, 'text' | 'json'][] = [
        ['a 20 KB identifier', [oaiTooLarge], 0, '431 Request Header Fields Too Large', 'text'],
        ['a 20 KB header', [`POST /OAI-PMH HTTP/1.1\r\nHost: a\r\nX-Big: ${long}\r\n\r\n`], 0, '431 Request Header Fields Too Large', 'text'],
        ['after a complete request on the connection', [`GET /status HTTP/1.1\r\nHost: a\r\n\r\n${oaiTooLarge}`], 0, '431 Request Header Fields Too Large', 'text'],
        // A pipelined request with a body before the refused one: its body is no request line (the /OAI-PMH POST was taken for the refused request).
        ['after a complete POST with a body, on /harvest', [`POST /OAI-PMH HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\n\r\nverb=IdentifyGET /harvest/listrecords?x=${long} HTTP/1.1\r\nHost: a\r\n\r\n`], 0, '431 Request Header Fields Too Large', 'json'],
        ['after a complete POST with a body, on /OAI-PMH', [`POST /harvest/listrecords HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}${oaiTooLarge}`], 0, '431 Request Header Fields Too Large', 'text'],
        ['after a chunked body (the path unknown)', [`POST /OAI-PMH HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${oaiTooLarge}`], 0, '431 Request Header Fields Too Large', 'json'],
        ['a header that is no HTTP', ['GET /OAI-PMH?verb=Identify HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n'], 0, '400 Bad Request', 'text'],
        // Paths the router serves as OAI-PMH too.
        ['on /oai-pmh', [oaiTooLarge.replace('/OAI-PMH', '/oai-pmh')], 0, '431 Request Header Fields Too Large', 'text'],
        ['on /OAI-PMH/', [oaiTooLarge.replace('/OAI-PMH', '/OAI-PMH/')], 0, '431 Request Header Fields Too Large', 'text'],
        ['on /harvest', [`GET /harvest/getrecord?request_ID=${long} HTTP/1.1\r\nHost: a\r\n\r\n`], 0, '431 Request Header Fields Too Large', 'json'],
        ['the request line in an earlier chunk than the refusal (the path unknown)', [oaiTooLarge.slice(0, 60), oaiTooLarge.slice(60)], 200, '431 Request Header Fields Too Large', 'json'],
      ];
      for (const [what, parts, gap, status, form] of cases) {
        const answer = parse(await raw(parts, gap));
        const refusal = /431/.test(status) ? 'the request line and headers are too large (the limit is 16 KiB)' : 'the request is not valid HTTP';
        expect(answer.status, what).to.equal(`HTTP/1.1 ${status}`);
        if (form === 'text') {
          expect(answer.type, what).to.equal('text/plain; charset=utf-8');
          expect(answer.body, what).to.match(new RegExp(`^T${refusal.slice(1).replace(/[()]/g, '\\$&')}`)).and.match(/\.\n$/);
        } else {
          expect(answer.type, what).to.equal('application/json; charset=utf-8');
          expect(JSON.parse(answer.body), what).to.deep.equal({ OK: false, error: refusal });
        }
      }
    });

    it('badVerb: missing, unknown or repeated verb, with a request element without attributes', async () => {
      for (const query of ['', 'verb=Nope', 'verb=Identify&verb=Identify', 'verb=<script>']) {
        const { status, xml } = await oai(node, query);
        expect(status).to.equal(200);
        assertValidOai(xml, 'official');
        expect(errorCode(xml), query).to.equal('badVerb');
        expect(requestElement(xml)).to.equal(`<request>${node.publicUrl}/OAI-PMH</request>`);
      }
    });

    it('badArgument: illegal, repeated, missing or exclusive-with-others arguments; nothing echoed', async () => {
      for (const query of [
        'verb=Identify&x=1', 'verb=Identify&identifier=a', 'verb=ListRecords', 'verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc',
        'verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=abc', 'verb=GetRecord&metadataPrefix=oai_dc', 'verb=GetRecord&identifier=dc-01',
        'verb=GetRecord&identifier=dc-01&metadataPrefix=oai_dc&by_doc_ID=T&by_resource_ID=T', 'verb=GetRecord&identifier=dc-01&metadataPrefix=oai_dc&by_doc_ID=yes',
        'verb=ListRecords&metadataPrefix=oai_dc&from=2021-06-02&until=2021-06-01', 'verb=ListRecords&metadataPrefix=oai_dc&from=2021-06-01&until=2021-06-02T00:00:00Z',
        'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2021-13-01', 'verb=ListRecords&metadataPrefix=a%20b', 'verb=ListRecords&metadataPrefix=oai_dc&%3Cx%3E=%22%3C%26',
        // A required argument given empty is missing (§3.6): not a lookup of an empty identifier or format.
        'verb=ListRecords&metadataPrefix=', 'verb=GetRecord&identifier=&metadataPrefix=oai_dc', 'verb=GetRecord&identifier=dc-01&metadataPrefix=',
        // An empty date is no date, not an absent bound.
        'verb=ListRecords&metadataPrefix=oai_dc&from=', 'verb=ListIdentifiers&metadataPrefix=oai_dc&until=',
        // Arguments another verb takes (§4): ListSets has none but resumptionToken, ListMetadataFormats no metadataPrefix.
        'verb=ListSets&set=a', 'verb=ListSets&metadataPrefix=oai_dc', 'verb=ListMetadataFormats&metadataPrefix=oai_dc', 'verb=ListIdentifiers&metadataPrefix=oai_dc&identifier=dc-01',
      ]) {
        const { xml } = await oai(node, query);
        assertValidOai(xml, 'official');
        expect(errorCode(xml), query).to.equal('badArgument');
        expect(requestElement(xml), query).to.equal(`<request>${node.publicUrl}/OAI-PMH</request>`);
      }
    });

    it('ListSets: noSetHierarchy; a set argument to a list is noSetHierarchy too', async () => {
      for (const query of ['verb=ListSets', 'verb=ListRecords&metadataPrefix=oai_dc&set=a']) {
        const { xml } = await oai(node, query);
        assertValidOai(xml, 'official');
        expect(errorCode(xml)).to.equal('noSetHierarchy');
      }
    });

    it('user-supplied values are escaped where they are echoed', async () => {
      const { xml } = await oai(node, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent('"><evil a="&amp;&foo;\u0001')}`);
      assertValidOai(xml, 'official');
      expect(errorCode(xml)).to.equal('idDoesNotExist');
      expect(xml).to.not.include('<evil');
      expect(requestElement(xml), xml).to.include('identifier="&quot;&gt;&lt;evil a=&quot;&amp;amp;&amp;foo;\uFFFD"');
    });
  });

  describe('ListMetadataFormats', () => {
    it('lists the stored formats with schema and namespace, and the JSON prefix', async () => {
      const { xml } = await oai(node, 'verb=ListMetadataFormats');
      assertValidOai(xml, 'official');
      const prefixes = [...xml.matchAll(/<metadataPrefix>([^<]*)</g)].map((m) => m[1]);
      expect(prefixes).to.deep.equal(['nsdl_dc', 'oai_dc', JSON_PREFIX]);
      expect(xml).to.include('<metadataPrefix>oai_dc</metadataPrefix><schema>http://www.openarchives.org/OAI/2.0/oai_dc.xsd</schema><metadataNamespace>http://www.openarchives.org/OAI/2.0/oai_dc/</metadataNamespace>');
      expect(xml).to.include(`<schema>${node.publicUrl}/schemas/OAI-PMH-LR.xsd</schema><metadataNamespace>http://www.learningregistry.org/OAI/2.0/</metadataNamespace>`);
    });

    it('for one identifier: its formats; idDoesNotExist otherwise; the extension flags use the extension schema', async () => {
      const one = await oai(node, 'verb=ListMetadataFormats&identifier=nsdl-1');
      assertValidOai(one.xml, 'official');
      // oai_dc is available for every record (issue 13, item 6).
      expect([...one.xml.matchAll(/<metadataPrefix>([^<]*)</g)].map((m) => m[1])).to.deep.equal(['nsdl_dc', 'oai_dc', JSON_PREFIX]);
      const missing = await oai(node, 'verb=ListMetadataFormats&identifier=nothing');
      assertValidOai(missing.xml, 'official');
      expect(errorCode(missing.xml)).to.equal('idDoesNotExist');
      const flagged = await oai(node, 'verb=ListMetadataFormats&identifier=dc-01&by_doc_ID=T');
      assertValidOai(flagged.xml, 'extension', `${node.publicUrl}/schemas/OAI-PMH-LR.xsd`);
      expect(requestElement(flagged.xml)).to.include('by_doc_ID="T"');
    });
  });

  describe('ListRecords and ListIdentifiers', () => {
    it('ListRecords oai_dc pages of doc_limit with tokens, cursor and an empty last token; unemittable records left out', async () => {
      const { ids, pages } = await harvest(node, 'ListRecords', 'metadataPrefix=oai_dc');
      const dc = Array.from({ length: 12 }, (_, i) => `dc-${String(i).padStart(2, '0')}`);
      // oai_dc is available for every record (issue 13, item 6): the nsdl_dc records and the deletion document too.
      const nsdl = ['nsdl-0', 'nsdl-1', 'nsdl-2', 'nsdl-3'];
      expect(ids).to.deep.equal([...dc, ...nsdl, 'dc-prolog', 'dc-linked', 'dc-attached', 'dc-marked', 'dc-tomb', 'del-doc', 'dc-shared']);
      expect(pages.length).to.equal(5);
      expect(pages[0]).to.match(/<resumptionToken cursor="0" expirationDate="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]+<\/resumptionToken>/);
      expect(pages[1]).to.match(/cursor="5"/);
      // Pages are full: a record left out is made up from the next rows (issue 13, items 7-8).
      expect(pages[4]).to.match(/<resumptionToken cursor="20" completeListSize="23"\/>/);
      const all = pages.join('');
      expect(all).to.include('<dc:title>With a prolog</dc:title>');
      expect(all).to.not.include('<!DOCTYPE');
      expect(all).to.include('<dc:title>Linked</dc:title>');
      expect(all).to.include('<dc:title>Attached</dc:title>');
      expect(all).to.include('<header status="deleted"><identifier>dc-marked</identifier>');
      expect(all).to.include('<header status="deleted"><identifier>dc-tomb</identifier>');
      expect(all).to.include('<dc:title>Record 3 &amp; more</dc:title>');
    });

    it('ListIdentifiers: same selection as ListRecords (dc-broken left out by both), headers only, inclusive [from, until]', async () => {
      const { ids } = await harvest(node, 'ListIdentifiers', 'metadataPrefix=oai_dc&from=2021-06-01T00:00:10Z&until=2021-06-01T00:00:41Z');
      expect(ids).to.deep.equal(['dc-10', 'dc-11', 'nsdl-0', 'nsdl-1', 'nsdl-2', 'nsdl-3', 'dc-prolog', 'dc-linked', 'dc-attached', 'dc-marked', 'dc-tomb']);
      const nsdl = await harvest(node, 'ListRecords', 'metadataPrefix=nsdl_dc');
      expect(nsdl.ids).to.deep.equal(['nsdl-0', 'nsdl-1', 'nsdl-2', 'nsdl-3']);
      expect(nsdl.pages[0]).to.include('<nsdl_dc:nsdl_dc');
    });

    it('noRecordsMatch for an empty range or an unknown format; never cannotDisseminateFormat', async () => {
      for (const query of ['verb=ListRecords&metadataPrefix=oai_dc&from=2030-01-01', 'verb=ListIdentifiers&metadataPrefix=lom']) {
        const { xml } = await oai(node, query);
        assertValidOai(xml, 'official');
        expect(errorCode(xml)).to.equal('noRecordsMatch');
        expect(requestElement(xml)).to.include('verb=');
      }
    });

    it('badResumptionToken for junk or a token of the other verb', async () => {
      const first = await oai(node, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
      expect(tokenOf(first.xml)).to.be.a('string');
      for (const token of ['junk', tokenOf(first.xml) as string]) {
        const { xml } = await oai(node, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`);
        assertValidOai(xml, 'official');
        expect(errorCode(xml)).to.equal('badResumptionToken');
      }
    });

    it('the JSON prefix returns complete documents as JSON, as Basic Harvest does (issue 13, item 5)', async () => {
      const { xml, type } = await oai(node, `verb=ListRecords&metadataPrefix=${JSON_PREFIX}&until=2021-06-01T00:00:01Z`);
      expect(type).to.match(/^application\/json/);
      const doc = ((JSON.parse(xml) as { listrecords: { record: { resource_data: Doc } }[] }).listrecords[0]?.record.resource_data) as Doc;
      expect(doc.doc_ID).to.equal('dc-00');
      expect(doc).to.not.have.property('_rev');
      // The JSON prefix covers every document, including the deletion document.
      const listed = JSON.parse((await oai(node, `verb=ListIdentifiers&metadataPrefix=${JSON_PREFIX}&from=2021-06-01T00:00:42Z`)).xml) as { listidentifiers: { header: { identifier: string } }[] };
      expect(listed.listidentifiers.map((item) => item.header.identifier)).to.deep.equal(['del-doc', 'dc-shared']);
    });
  });

  describe('GetRecord', () => {
    it('a standard request with the doc_ID from ListIdentifiers (no flags) returns the record', async () => {
      const { xml } = await oai(node, 'verb=GetRecord&identifier=dc-04&metadataPrefix=oai_dc');
      assertValidOai(xml, 'official');
      expect(identifiers(xml)).to.deep.equal(['dc-04']);
      expect(xml).to.include('<datestamp>2021-06-01T00:00:04Z</datestamp>');
      expect(requestElement(xml)).to.equal(`<request verb="GetRecord" identifier="dc-04" metadataPrefix="oai_dc">${node.publicUrl}/OAI-PMH</request>`);
    });

    it('the oai-identifier form of a doc_ID that earlier versions advertised is still accepted', async () => {
      const repository = 'lr-node.invalid'; // the node's host is an address
      const { xml } = await oai(node, `verb=GetRecord&identifier=oai:${repository}:dc-05&metadataPrefix=oai_dc`);
      expect(identifiers(xml)).to.deep.equal(['dc-05']);
    });

    it('by_resource_ID returns every document of the locator, deleted ones with status deleted (extension schema)', async () => {
      const { xml } = await oai(node, `verb=GetRecord&identifier=${encodeURIComponent('http://example.org/oai/shared')}&metadataPrefix=oai_dc&by_resource_ID=T`);
      assertValidOai(xml, 'extension');
      expect(identifiers(xml)).to.deep.equal(['dc-tomb', 'dc-shared']);
      expect(xml).to.include('<header status="deleted"><identifier>dc-tomb</identifier>');
    });

    it('idDoesNotExist by doc ID and by resource; cannotDisseminateFormat for another format or broken data', async () => {
      const cases: [string, string][] = [
        ['verb=GetRecord&identifier=nothing&metadataPrefix=oai_dc&by_doc_ID=T', 'idDoesNotExist'],
        ['verb=GetRecord&identifier=http%3A%2F%2Fnowhere&metadataPrefix=oai_dc&by_resource_ID=T', 'idDoesNotExist'],
        ['verb=GetRecord&identifier=nsdl-0&metadataPrefix=lom', 'cannotDisseminateFormat'],
        ['verb=GetRecord&identifier=dc-broken&metadataPrefix=oai_dc', 'cannotDisseminateFormat'],
      ];
      for (const [query, code] of cases) {
        const { xml } = await oai(node, query);
        assertValidOai(xml, query.includes('by_') ? 'extension' : 'official');
        expect(errorCode(xml), query).to.equal(code);
      }
    });

    it('a deleted record is a header with status deleted; the JSON prefix returns the document as JSON', async () => {
      const deleted = await oai(node, 'verb=GetRecord&identifier=dc-marked&metadataPrefix=oai_dc');
      assertValidOai(deleted.xml, 'official');
      expect(deleted.xml).to.include('<record><header status="deleted"><identifier>dc-marked</identifier><datestamp>2021-06-01T00:00:40Z</datestamp></header></record>');
      const json = await oai(node, `verb=GetRecord&identifier=nsdl-2&metadataPrefix=${JSON_PREFIX}`);
      expect(json.type).to.match(/^application\/json/);
      expect((JSON.parse(json.xml) as { getrecord: { record: { resource_data: Doc }[] } }).getrecord.record[0]?.resource_data.doc_ID).to.equal('nsdl-2');
    });
  });

  describe('schemas and failures', () => {
    it('serves the extension schemas it names', async () => {
      for (const name of ['OAI-PMH-LR.xsd', 'OAI-PMH-LR-json.xsd']) {
        const response = await fetch(`${node.url}/schemas/${name}`);
        expect(response.status).to.equal(200);
        expect(await response.text()).to.include('<schema');
      }
      expect((await fetch(`${node.url}/schemas/..%2Fsecret.xsd`)).status).to.equal(404);
    });
  });
});

describe('OAI-PMH 2.0 with deleted-data policy no and no private fetches', () => {
  let node: TestNode;
  let linked: { url: string; close(): Promise<void> };
  before(async () => {
    linked = await linkedServer();
    node = await startTestNode({ nodeConfig: { policy: { deleted_data_policy: 'no' }, services: { oai_pmh: { service_data: oaiData({ granularity: 'YYYY-MM-DD' }) } } } });
    await loadOaiCorpus(node, linked.url);
  });
  after(async () => { await node.stop(); await linked.close(); });

  it('deleted documents are not listed and are idDoesNotExist; Identify says deletedRecord no, day granularity', async () => {
    const { ids, pages } = await harvest(node, 'ListIdentifiers', 'metadataPrefix=oai_dc');
    expect(ids).to.not.include('dc-marked');
    expect(ids).to.not.include('dc-tomb');
    expect(pages[0]).to.include('<datestamp>2021-06-01</datestamp>');
    expect(errorCode((await oai(node, 'verb=GetRecord&identifier=dc-marked&metadataPrefix=oai_dc')).xml)).to.equal('idDoesNotExist');
    const identify = (await oai(node, 'verb=Identify')).xml;
    assertValidOai(identify, 'official');
    expect(identify).to.include('<deletedRecord>no</deletedRecord>');
    expect(identify).to.include('<granularity>YYYY-MM-DD</granularity>');
    expect(errorCode((await oai(node, 'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2021-06-01T00:00:00Z')).xml)).to.equal('badArgument');
  });

  it('a linked payload on a private address is refused (SSRF guard): cannotDisseminateFormat', async () => {
    const { xml } = await oai(node, 'verb=GetRecord&identifier=dc-linked&metadataPrefix=oai_dc');
    assertValidOai(xml, 'official');
    expect(errorCode(xml)).to.equal('cannotDisseminateFormat');
  });
});
