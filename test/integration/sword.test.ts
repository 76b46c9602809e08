/** SWORD 1.3 (spec "SWORD publish"): the service document and deposits through the publish pipeline. */
import { createHash } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, settled, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { fetchXml, NS, ERROR_URI, type XmlResponse } from '../support/atompub.js';

const ALICE = basicAuth('alice', 'alice-password-1');
const OPS = basicAuth('ops', 'ops-password-1');
/** A document that names no submitter: the depositing account (or the one deposited for) becomes it. */
const unattributed = (doc: Doc, extra: Doc = {}): Doc => ({ ...doc, identity: { submitter_type: 'agent' }, ...extra });

describe('SWORD 1.3', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: {
      node: { node_name: 'Test <node> & co', node_description: 'A node for SWORD tests' },
      community: { community_name: 'Test community' },
      policy: { max_document_size: 12000 },
      services: { publish: { service_data: { doc_limit: 5, msg_size_limit: 20000 } }, sword: { service_data: { version: '1.3', collection_policy: 'Only JSON resource data description documents' } } },
    } });
    await addAccount(node, 'alice', 'alice-password-1', 'publisher', 'alice@example.org');
    await addAccount(node, 'bob', 'bob-password-1', 'publisher', 'bob@example.org');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  const stored = async (id: string): Promise<Doc | undefined> => {
    try { return await node.couch.use(node.names.resourceData).get(id) as unknown as Doc; } catch { return undefined; }
  };
  const service = (headers: Record<string, string> = {}): Promise<XmlResponse> => fetchXml(`${node.url}/swordservice`, { headers });
  const deposit = (body: unknown, headers: Record<string, string> = {}): Promise<XmlResponse> => fetchXml(`${node.url}/swordpub`, {
    method: 'POST',
    headers: { authorization: ALICE, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
  });
  const expectError = (response: XmlResponse, status: number, name: string): void => {
    expect(response.status, response.text).to.equal(status);
    expect(response.headers.get('content-type')).to.match(/^application\/xml/);
    expect(response.xml.root.namespaceURI).to.equal(NS.sword);
    expect(response.xml.root.localName).to.equal('error');
    expect(response.xml.root.getAttribute('href')).to.equal(ERROR_URI(name));
    expect(response.xml.text(NS.atom, 'title')).to.equal('ERROR');
    expect(response.xml.text(NS.atom, 'summary')).to.be.a('string').and.not.equal('');
  };

  describe('GET /swordservice', () => {
    it('answers 401 with WWW-Authenticate and a sword:error without valid credentials', async () => {
      expectError(await service(), 401, 'TargetOwnerUnknown');
      const wrong = await service({ authorization: basicAuth('alice', 'wrong-password') });
      expectError(wrong, 401, 'TargetOwnerUnknown');
      expect(wrong.headers.get('www-authenticate')).to.match(/^Basic realm=/);
    });

    it('is the SWORD 1.3 service document of the spec for a publisher', async () => {
      const { status, headers, xml } = await service({ authorization: ALICE });
      expect(status).to.equal(200);
      expect(headers.get('content-type')).to.match(/^application\/atomsvc\+xml/);
      expect(xml.root.namespaceURI).to.equal(NS.app);
      expect(xml.root.localName).to.equal('service');
      expect(xml.children(NS.sword, 'version').map((e) => e.textContent)).to.deep.equal(['1.3']);
      expect(xml.children(NS.sword, 'verbose').map((e) => e.textContent)).to.deep.equal(['true']);
      expect(xml.children(NS.sword, 'noOp').map((e) => e.textContent)).to.deep.equal(['true']);
      // publish msg_size_limit 20,000 bytes: 19 kB, what a client may send (a deposit over it is 413).
      expect(xml.children(NS.sword, 'maxUploadSize').map((e) => e.textContent)).to.deep.equal(['19']);
      const workspaces = xml.children(NS.app, 'workspace');
      expect(workspaces).to.have.length(1);
      const workspace = workspaces[0] as Element;
      expect(xml.children(NS.atom, 'title', workspace).map((e) => e.textContent)).to.deep.equal(['Test community']);
      const collections = xml.children(NS.app, 'collection', workspace);
      expect(collections).to.have.length(1);
      const collection = collections[0] as Element;
      expect(collection.getAttribute('href')).to.equal(`${node.url}/swordpub`);
      expect(xml.text(NS.atom, 'title', collection)).to.equal('Test <node> & co');
      expect(xml.children(NS.app, 'accept', collection).map((e) => e.textContent)).to.deep.equal(['application/json']);
      expect(xml.text(NS.sword, 'mediation', collection)).to.equal('true');
      expect(xml.text(NS.dcterms, 'abstract', collection)).to.equal('A node for SWORD tests');
      expect(xml.text(NS.sword, 'collectionPolicy', collection)).to.equal('Only JSON resource data description documents');
      expect(xml.all(NS.sword, 'treatment')).to.have.length(0);
      expect(xml.all(NS.sword, 'service')).to.have.length(0);
    });

    it('lists the collection only when the (X-On-Behalf-Of) user may publish', async () => {
      const collections = async (headers: Record<string, string>): Promise<number> => {
        const response = await service(headers);
        expect(response.status).to.equal(200);
        return response.xml.all(NS.app, 'collection').length;
      };
      expect(await collections({ authorization: OPS })).to.equal(0); // a network_admin is not a publisher
      expect(await collections({ authorization: OPS, 'x-on-behalf-of': 'bob' })).to.equal(1);
      expect(await collections({ authorization: OPS, 'x-on-behalf-of': 'ghost' })).to.equal(0);
      expect(await collections({ authorization: OPS, 'x-on-behalf-of': 'ops' })).to.equal(0);
      expect(await collections({ authorization: ALICE, 'x-on-behalf-of': 'bob' })).to.equal(0); // alice may not mediate
      expect(await collections({ authorization: ALICE, 'x-on-behalf-of': 'alice' })).to.equal(1);
    });

    it('falls back to node_id and community_id, and omits dcterms:abstract without a description', async () => {
      const nodeDb = node.couch.use<Doc>(node.names.node);
      const communityDb = node.couch.use<Doc>(node.names.community);
      const nodeDoc = await nodeDb.get('node_description');
      const communityDoc = await communityDb.get('community_description');
      const { node_name: _n, node_description: _d, ...bareNode } = nodeDoc;
      const { community_name: _c, ...bareCommunity } = communityDoc;
      void _n; void _d; void _c;
      await nodeDb.insert(bareNode);
      await communityDb.insert(bareCommunity);
      await settled(node);
      try {
        const { xml } = await service({ authorization: ALICE });
        const workspace = xml.all(NS.app, 'workspace')[0] as Element;
        expect(xml.children(NS.atom, 'title', workspace)[0]?.textContent).to.equal(communityDoc.community_id);
        const collection = xml.all(NS.app, 'collection')[0] as Element;
        expect(xml.text(NS.atom, 'title', collection)).to.equal(nodeDoc.node_id);
        expect(xml.all(NS.dcterms, 'abstract')).to.have.length(0);
      } finally {
        await nodeDb.insert({ ...nodeDoc, _rev: (await nodeDb.get('node_description'))._rev });
        await communityDb.insert({ ...communityDoc, _rev: (await communityDb.get('community_description'))._rev });
        await settled(node);
      }
    });
  });

  describe('POST /swordpub', () => {
    it('deposits through the publish pipeline: 201, Location and an Atom deposit receipt', async () => {
      const response = await deposit(unattributed(nsdlDocs(1)[0] as Doc), { 'user-agent': 'sword-test/1.0' });
      expect(response.status, response.text).to.equal(201);
      expect(response.headers.get('content-type')).to.match(/^application\/atom\+xml; ?type=entry/);
      const { xml } = response;
      expect(xml.root.namespaceURI).to.equal(NS.atom);
      expect(xml.root.localName).to.equal('entry');
      const docId = xml.text(NS.atom, 'summary') as string;
      expect(docId).to.match(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const obtain = `${node.url}/obtain?request_ID=${encodeURIComponent(docId)}&by_doc_ID=T`;
      expect(response.headers.get('location')).to.equal(obtain);
      const content = xml.all(NS.atom, 'content')[0] as Element;
      expect(content.getAttribute('src')).to.equal(obtain);
      expect(content.getAttribute('type')).to.equal('application/json');
      expect(xml.text(NS.atom, 'id')).to.equal(obtain);
      expect(xml.text(NS.sword, 'treatment')).to.match(/Basic Publish/);
      expect(xml.all(NS.atom, 'generator')[0]?.getAttribute('uri')).to.equal(`${node.url}/swordservice`);
      expect(xml.text(NS.atom, 'name', xml.all(NS.atom, 'author')[0])).to.equal('alice');
      expect(xml.text(NS.sword, 'noOp')).to.equal('false');
      expect(xml.text(NS.sword, 'userAgent')).to.equal('sword-test/1.0');
      expect(xml.all(NS.sword, 'verboseDescription')).to.have.length(0);
      const doc = await stored(docId) as Doc;
      expect(doc.publish_node).to.equal(node.bootstrap.nodeId);
      expect((doc.identity as Doc).submitter).to.equal('alice@example.org');
    });

    it('X-Verbose adds a sword:verboseDescription naming the Content-Disposition filename', async () => {
      const { status, xml } = await deposit(unattributed(nsdlDocs(2)[1] as Doc), { 'x-verbose': 'true', 'content-disposition': 'attachment; filename=lr-doc.json' });
      expect(status).to.equal(201);
      const verbose = xml.text(NS.sword, 'verboseDescription') as string;
      expect(verbose).to.include('alice').and.include('lr-doc.json').and.include('Content-MD5 not supplied');
    });

    it('X-No-Op runs every check and stores nothing: 200, no Location, sword:noOp true', async () => {
      const response = await deposit(unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: 'sword-noop-1' }), { 'x-no-op': 'true' });
      expect(response.status, response.text).to.equal(200);
      expect(response.headers.get('location')).to.equal(null);
      expect(response.xml.text(NS.sword, 'noOp')).to.equal('true');
      expect(response.xml.text(NS.atom, 'summary')).to.equal('sword-noop-1');
      expect(response.xml.all(NS.atom, 'content')[0]?.getAttribute('src')).to.equal(null);
      expect(await stored('sword-noop-1')).to.equal(undefined);
      const invalid = await deposit({ doc_type: 'resource_data' }, { 'x-no-op': 'true' });
      expectError(invalid, 400, 'ErrorBadRequest');
      expectError(await deposit(nsdlDocs(1)[0], { 'x-no-op': 'maybe' }), 400, 'ErrorBadRequest');
    });

    it('accepts a matching Content-MD5 in hex or base64; a mismatch is 412 ErrorChecksumMismatch', async () => {
      const body = (id: string): string => JSON.stringify(unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: id }));
      const md5 = (text: string, encoding: 'hex' | 'base64'): string => createHash('md5').update(text).digest(encoding);
      expect((await deposit(body('sword-md5-hex'), { 'content-md5': md5(body('sword-md5-hex'), 'hex') })).status).to.equal(201);
      expect((await deposit(body('sword-md5-b64'), { 'content-md5': md5(body('sword-md5-b64'), 'base64') })).status).to.equal(201);
      expectError(await deposit(body('sword-md5-bad'), { 'content-md5': md5('something else', 'hex') }), 412, 'ErrorChecksumMismatch');
      expect(await stored('sword-md5-bad')).to.equal(undefined);
      expectError(await deposit(body('sword-md5-junk'), { 'content-md5': 'not-a-digest' }), 400, 'ErrorBadRequest');
    });

    it('decodes a gzip, deflate or br deposit as /publish does, its Content-MD5 over the body as sent; another coding is 415 ErrorContent', async () => {
      // A gzip deposit was "not valid JSON", and an unknown coding was read as none (an audit's finding).
      const text = (id: string): string => JSON.stringify(unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: id }));
      const gzipped = gzipSync(text('sword-gzip'));
      const answer = await deposit(gzipped, { 'content-encoding': 'gzip', 'content-md5': createHash('md5').update(gzipped).digest('base64') });
      expect(answer.status, answer.text).to.equal(201);
      expect(await stored('sword-gzip')).to.include({ doc_ID: 'sword-gzip' });
      expect((await deposit(deflateSync(text('sword-deflate')), { 'content-encoding': 'deflate' })).status).to.equal(201);
      expect((await deposit(brotliCompressSync(text('sword-br')), { 'content-encoding': 'br' })).status).to.equal(201);
      expectError(await deposit(text('sword-coding-foo'), { 'content-encoding': 'foo' }), 415, 'ErrorContent');
      expectError(await deposit(text('sword-not-gzip'), { 'content-encoding': 'gzip' }), 400, 'ErrorBadRequest');
      for (const id of ['sword-coding-foo', 'sword-not-gzip']) expect(await stored(id), id).to.equal(undefined);
      // The size limit holds for what the body decodes to (a small gzip of a large deposit).
      const bomb = gzipSync(JSON.stringify(unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: 'sword-bomb', resource_data: `<x>${'y'.repeat(3_000_000)}</x>` })));
      expect(bomb.length).to.be.below(100_000);
      expectError(await deposit(bomb, { 'content-encoding': 'gzip' }), 413, 'MaxUploadSizeExceeded');
    });

    it('only application/json: other content is 415 ErrorContent, packages too', async () => {
      expectError(await deposit(JSON.stringify(nsdlDocs(1)[0]), { 'content-type': 'application/zip' }), 415, 'ErrorContent');
      expectError(await deposit(JSON.stringify(nsdlDocs(1)[0]), { 'x-packaging': 'http://purl.org/net/sword-types/METSDSpaceSIP' }), 415, 'ErrorContent');
      expect((await deposit(unattributed(nsdlDocs(1)[0] as Doc), { 'content-type': 'application/json; charset=utf-8' })).status).to.equal(201);
    });

    it('one document over the node policy\'s max_document_size, in a body under msg_size_limit, is 413 MaxUploadSizeExceeded too', async () => {
      // It was 400 ErrorBadRequest "too large".
      const big = unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: 'sword-doc-too-large', resource_data: `<x>${'y'.repeat(14000)}</x>` });
      expect(JSON.stringify(big).length).to.be.within(12001, 19999);
      expectError(await deposit(big), 413, 'MaxUploadSizeExceeded');
      expect(await stored('sword-doc-too-large')).to.equal(undefined);
    });

    it('a body over publish msg_size_limit is 413 MaxUploadSizeExceeded', async () => {
      const big = unattributed(nsdlDocs(1)[0] as Doc, { resource_data: 'x'.repeat(30000) });
      expectError(await deposit(big), 413, 'MaxUploadSizeExceeded');
      // Without Content-Length (chunked), the limit is enforced while reading.
      const bytes = new TextEncoder().encode(JSON.stringify(big));
      const chunked = await fetchXml(`${node.url}/swordpub`, {
        method: 'POST',
        headers: { authorization: ALICE, 'content-type': 'application/json' },
        body: new ReadableStream({ start(controller) { controller.enqueue(bytes.slice(0, 15000)); controller.enqueue(bytes.slice(15000)); controller.close(); } }),
        duplex: 'half',
      } as RequestInit);
      expectError(chunked, 413, 'MaxUploadSizeExceeded');
    });

    it('publish failures are 400 ErrorBadRequest with the publish error, escaped', async () => {
      expectError(await deposit('{not json'), 400, 'ErrorBadRequest');
      const invalid = await deposit({ doc_type: 'resource_data', doc_version: '<0.49.0>' });
      expectError(invalid, 400, 'ErrorBadRequest');
      expect(invalid.xml.text(NS.atom, 'summary')).to.match(/^invalid document/);
      const dnd = await deposit({ ...nsdlDocs(1)[0], do_not_distribute: true });
      expectError(dnd, 400, 'ErrorBadRequest');
      expect(dnd.xml.text(NS.atom, 'summary')).to.include('do_not_distribute');
    });

    it('needs credentials: 401 TargetOwnerUnknown with WWW-Authenticate', async () => {
      const none = await deposit(nsdlDocs(1)[0], { authorization: '' });
      expectError(none, 401, 'TargetOwnerUnknown');
      expect(none.headers.get('www-authenticate')).to.match(/^Basic realm=/);
      expectError(await deposit(nsdlDocs(1)[0], { authorization: basicAuth('alice', 'nope-nope-1') }), 401, 'TargetOwnerUnknown');
      // Authenticated but not a publisher: 403 naming the role (issue 12), not a request for credentials it sent.
      expectError(await deposit(nsdlDocs(1)[0], { authorization: OPS }), 403, 'TargetOwnerUnknown');
    });

    // A JSON body here was not what a SWORD client reads (an audit's finding).
    it('another method: 405 with Allow and a sword:error document; OPTIONS says what is allowed', async () => {
      for (const [method, path, allowed] of [['GET', '/swordpub', 'POST'], ['DELETE', '/swordpub', 'POST'], ['PUT', '/swordpub', 'POST'], ['POST', '/swordservice', 'GET, HEAD']] as const) {
        const response = await fetchXml(`${node.url}${path}`, { method, headers: { authorization: ALICE } });
        expectError(response, 405, 'ErrorBadRequest');
        expect(response.headers.get('allow'), `${method} ${path}`).to.equal(allowed);
        expect(response.xml.text(NS.atom, 'summary')).to.match(new RegExp(`^${method} is not allowed on ${path}: `));
      }
      const options = await fetch(`${node.url}/swordpub`, { method: 'OPTIONS' });
      expect({ status: options.status, allow: options.headers.get('allow') }).to.deep.equal({ status: 204, allow: 'POST' });
    });

    it('mediated deposit: a network_admin on behalf of a publisher; others 412 / 401', async () => {
      expectError(await deposit(nsdlDocs(1)[0], { 'x-on-behalf-of': 'bob' }), 412, 'MediationNotAllowed');
      expectError(await deposit(nsdlDocs(1)[0], { authorization: OPS, 'x-on-behalf-of': 'ghost' }), 401, 'TargetOwnerUnknown');
      const response = await deposit(unattributed(nsdlDocs(1)[0] as Doc, { doc_ID: 'sword-mediated' }), { authorization: OPS, 'x-on-behalf-of': 'bob', 'x-verbose': 'true' });
      expect(response.status, response.text).to.equal(201);
      expect(response.xml.text(NS.atom, 'name', response.xml.all(NS.atom, 'author')[0])).to.equal('ops');
      expect(response.xml.text(NS.atom, 'name', response.xml.all(NS.atom, 'contributor')[0])).to.equal('bob');
      expect(response.xml.text(NS.sword, 'verboseDescription')).to.include('on behalf of bob');
      expect(((await stored('sword-mediated')) as Doc).identity).to.deep.include({ submitter: 'bob@example.org' });
    });
  });
});
