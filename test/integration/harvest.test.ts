/** Basic Harvest (JSON): every rule of the spec's "Basic Harvest (JSON)" section, through the server. */
import { expect } from 'chai';
import { startTestNode, getJson, postJson, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';

type Json = Record<string, unknown>;
const FORMATS = [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }];
const harvestData = (extra: Json = {}): Json => ({ granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 7, id_limit: 7, metadataformats: FORMATS, ...extra });

/** 25 live documents doc-00000… at 2020-01-01T00:00:00Z + i s, then the three deleted states. */
async function harvestNode(policy: 'no' | 'transient' | 'persistent', harvest: Json = harvestData()): Promise<TestNode> {
  // An identity in the name-addr form: identify's adminEmail is the address in it.
  const node = await startTestNode({ nodeConfig: { policy: { deleted_data_policy: policy }, node: { node_admin_identity: 'Harvest Admin <admin@example.org>' }, services: { harvest: { service_data: harvest } } } });
  await loadStoredCorpus(node, 25);
  const db = node.couch.use(node.names.resourceData);
  const base = { doc_type: 'resource_data', payload_placement: 'inline', payload_schema: ['nsdl_dc'], resource_data: '<x/>', resource_locator: 'http://example.org/gone' };
  await db.bulk({ docs: [
    { ...base, _id: 'gone-mark', doc_ID: 'gone-mark', node_deleted: '2020-01-01T00:00:30.000000Z', node_timestamp: '2020-01-01T00:00:30.000000Z' },
    { _id: 'gone-tomb', doc_ID: 'gone-tomb', doc_type: 'tombstone', payload_schema: ['nsdl_dc'], replaced_by: { doc_ID: 'x' }, resource_locator: 'http://example.org/gone', node_timestamp: '2020-01-01T00:00:31.000000Z' },
    { _id: 'gone-del', doc_ID: 'gone-del', doc_type: 'resource_data', payload_placement: 'none', replaces: ['gone-tomb'], node_timestamp: '2020-01-01T00:00:32.000000Z' },
  ] as never[] });
  return node;
}

async function harvestAll(node: TestNode, verb: string, query = ''): Promise<{ items: Json[]; pages: Json[] }> {
  const items: Json[] = [];
  const pages: Json[] = [];
  let url = `${node.url}/harvest/${verb}?${query}`;
  for (let guard = 0; guard < 100; guard += 1) {
    const { status, body } = await getJson(url);
    expect(status).to.equal(200);
    expect(body.OK, JSON.stringify(body)).to.equal(true);
    pages.push(body);
    items.push(...(body[verb] as Json[]));
    if (typeof body.resumption_token !== 'string') break;
    url = `${node.url}/harvest/${verb}?resumption_token=${encodeURIComponent(body.resumption_token)}`;
  }
  return { items, pages };
}

const headerOf = (item: Json): Json => ((item.record as Json | undefined)?.header ?? item.header) as Json;

describe('Basic Harvest (JSON)', () => {
  describe('deleted-data policy transient', () => {
    let node: TestNode;
    before(async () => { node = await harvestNode('transient'); });
    after(async () => node.stop());

    it('listrecords pages by doc_limit with keyset tokens through every record, deleted ones as status deleted without data', async () => {
      const { items, pages } = await harvestAll(node, 'listrecords');
      expect(pages.map((p) => (p.listrecords as Json[]).length)).to.deep.equal([7, 7, 7, 7]);
      expect(pages.at(-1)?.resumption_token).to.equal(null);
      const headers = items.map(headerOf);
      expect(headers.map((h) => h.identifier)).to.deep.equal([...Array.from({ length: 25 }, (_, i) => `doc-${String(i).padStart(5, '0')}`), 'gone-mark', 'gone-tomb', 'gone-del']);
      expect(headers[3]).to.deep.equal({ identifier: 'doc-00003', datestamp: '2020-01-01T00:00:03Z', status: 'active' });
      expect(headers.slice(25).map((h) => h.status)).to.deep.equal(['deleted', 'deleted', 'deleted']);
      const first = items[0]?.record as Json;
      expect((first.resource_data as Json).doc_ID).to.equal('doc-00000');
      expect(first.resource_data).to.not.have.property('_id');
      expect(first.resource_data).to.not.have.property('_rev');
      expect((items[25]?.record as Json)).to.not.have.property('resource_data');
    });

    it('common fields on every answer: OK, responseDate (seconds), request with verb, HTTP_request and the arguments', async () => {
      const { body } = await getJson(`${node.url}/harvest/listidentifiers?from=2020-01-01T00:00:03Z&until=2020-01-01T00:00:05Z`);
      expect(body.OK).to.equal(true);
      expect(body.responseDate).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(body.request).to.deep.equal({ verb: 'listidentifiers', HTTP_request: `${node.publicUrl}/harvest/listidentifiers`, from: '2020-01-01T00:00:03Z', until: '2020-01-01T00:00:05Z' });
      expect(body).to.not.have.property('error');
      // [from, until] inclusive on node_timestamp; headers only.
      expect((body.listidentifiers as Json[]).map((item) => (item.header as Json).identifier)).to.deep.equal(['doc-00003', 'doc-00004', 'doc-00005']);
      expect(body).to.not.have.property('resumption_token');
    });

    it('POST with a JSON body equals GET with the query', async () => {
      const { body } = await postJson(`${node.url}/harvest/listidentifiers`, { from: '2020-01-01', until: '2020-01-01' });
      expect(body.OK).to.equal(true);
      expect((body.listidentifiers as Json[]).length).to.equal(7);
      const got = await postJson(`${node.url}/harvest/getrecord`, { request_ID: 'doc-00002', by_doc_ID: true });
      expect(((got.body.getrecord as Json).record as Json[])[0]?.header).to.deep.equal({ identifier: 'doc-00002', datestamp: '2020-01-01T00:00:02Z', status: 'active' });
    });

    it('missing from defaults to the earliest timestamp, missing until to the latest', async () => {
      expect((await harvestAll(node, 'listidentifiers', 'until=2020-01-01T00:00:01Z')).items.length).to.equal(2);
      expect((await harvestAll(node, 'listidentifiers', 'from=2020-01-01T00:00:31Z')).items.map((i) => headerOf(i).identifier)).to.deep.equal(['gone-tomb', 'gone-del']);
    });

    it('badArgument: from later than until, different granularities, not a date, illegal or repeated argument', async () => {
      for (const query of [
        'from=2020-01-02&until=2020-01-01',
        'from=2020-01-01T00:00:05Z&until=2020-01-01T00:00:04Z',
        'from=2020-01-01&until=2020-01-02T00:00:00Z',
        'from=2020-02-30',
        'from=yesterday',
        'from=2020-01-01T00:00:00.5Z',
        'set=x',
        'from=2020-01-01&from=2020-01-02',
      ]) {
        const { status, body } = await getJson(`${node.url}/harvest/listrecords?${query}`);
        expect(status, query).to.equal(200);
        expect(body, query).to.include({ OK: false, error: 'badArgument' });
        expect(body.responseDate).to.be.a('string');
        expect((body.request as Json).verb).to.equal('listrecords');
      }
    });

    it('noRecordsMatch for an empty range', async () => {
      const { body } = await getJson(`${node.url}/harvest/listrecords?from=2031-01-01`);
      expect(body).to.include({ OK: false, error: 'noRecordsMatch' });
    });

    it('badResumptionToken for junk and for a token of another verb', async () => {
      expect((await getJson(`${node.url}/harvest/listrecords?resumption_token=junk`)).body).to.include({ OK: false, error: 'badResumptionToken' });
      const { body } = await getJson(`${node.url}/harvest/listidentifiers`);
      const other = await getJson(`${node.url}/harvest/listrecords?resumption_token=${encodeURIComponent(String(body.resumption_token))}`);
      expect(other.body).to.include({ OK: false, error: 'badResumptionToken' });
    });

    it('getrecord: badArgument without request_ID or with both flags; idDoesNotExist; by resource locator every document', async () => {
      expect((await getJson(`${node.url}/harvest/getrecord`)).body).to.include({ OK: false, error: 'badArgument' });
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=doc-00001&by_doc_ID=T&by_resource_ID=T`)).body).to.include({ OK: false, error: 'badArgument' });
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=doc-00001&by_doc_ID=maybe`)).body).to.include({ OK: false, error: 'badArgument' });
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=nothing-here&by_doc_ID=T`)).body).to.include({ OK: false, error: 'idDoesNotExist' });
      // request_id as obtain's GET and the original node's getrecord take it; not both spellings at once.
      const lower = (await getJson(`${node.url}/harvest/getrecord?request_id=doc-00001&by_doc_ID=T`)).body;
      expect(lower.request).to.deep.include({ identifier: 'doc-00001' });
      expect(((lower.getrecord as Json).record as Json[])[0]?.header).to.deep.include({ identifier: 'doc-00001' });
      expect((await getJson(`${node.url}/harvest/getrecord?request_id=doc-00001&request_ID=doc-00002&by_doc_ID=T`)).body).to.include({ OK: false, error: 'badArgument' });
      const byLocator = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent('http://example.org/r/3')}&by_resource_ID=T`);
      expect(byLocator.body.request).to.deep.include({ verb: 'getrecord', identifier: 'http://example.org/r/3', by_resource_ID: 'T' });
      const records = (byLocator.body.getrecord as Json).record as Json[];
      expect(records.map((r) => (r.header as Json).identifier)).to.deep.equal(['doc-00003']);
      expect((records[0]?.resource_data as Json).resource_locator).to.equal('http://example.org/r/3');
      const gone = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent('http://example.org/gone')}`);
      expect(((gone.body.getrecord as Json).record as Json[]).map((r) => r.header)).to.deep.equal([
        { identifier: 'gone-mark', datestamp: '2020-01-01T00:00:30Z', status: 'deleted' },
        { identifier: 'gone-tomb', datestamp: '2020-01-01T00:00:31Z', status: 'deleted' },
      ]);
      // Neither flag given and no locator matches: the identifier is a doc_ID.
      const plain = await getJson(`${node.url}/harvest/getrecord?request_ID=doc-00004`);
      expect(((plain.body.getrecord as Json).record as Json[]).length).to.equal(1);
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=doc-00004&by_resource_ID=T`)).body.error).to.equal('idDoesNotExist');
    });

    it('identify returns every field the spec lists', async () => {
      const { body } = await getJson(`${node.url}/harvest/identify`);
      expect(body.OK).to.equal(true);
      const identify = body.identify as Json;
      expect(Object.keys(identify).sort()).to.deep.equal(['adminEmail', 'baseURL', 'deletedRecord', 'earliestDatestamp', 'granularity', 'node_id', 'protocolVersion', 'repositoryName', 'service_version'].sort());
      expect(identify).to.include({ protocolVersion: '2.0', earliestDatestamp: '2020-01-01T00:00:00Z', deletedRecord: 'transient', granularity: 'YYYY-MM-DDThh:mm:ssZ', adminEmail: 'admin@example.org', baseURL: `${node.publicUrl}/harvest`, service_version: '0.10.0' });
      expect(identify.node_id).to.be.a('string');
    });

    it('listmetadataformats returns the structure of the service description; an argument is an error', async () => {
      expect((await getJson(`${node.url}/harvest/listmetadataformats`)).body).to.deep.include({ OK: true, listmetadataformats: FORMATS });
      expect((await getJson(`${node.url}/harvest/listmetadataformats?request_ID=x`)).body).to.include({ OK: false, error: 'badArgument' });
    });

    it('listsets: always noSetHierarchy, by GET and POST', async () => {
      expect((await getJson(`${node.url}/harvest/listsets`)).body).to.include({ OK: false, error: 'noSetHierarchy' });
      expect((await postJson(`${node.url}/harvest/listsets`, {})).body).to.include({ OK: false, error: 'noSetHierarchy' });
      // "always": with arguments too (they were badArgument).
      expect((await getJson(`${node.url}/harvest/listsets?foo=1&set=x`)).body).to.include({ OK: false, error: 'noSetHierarchy' });
      expect((await postJson(`${node.url}/harvest/listsets`, { from: null })).body).to.include({ OK: false, error: 'noSetHierarchy' });
    });
  });

  describe('deleted-data policy no, earliestDatestamp and day granularity', () => {
    let node: TestNode;
    before(async () => { node = await harvestNode('no', harvestData({ granularity: 'YYYY-MM-DD', earliestDatestamp: '2020-01-01', doc_limit: 4 })); });
    after(async () => node.stop());

    it('deleted documents are omitted from lists and getrecord', async () => {
      const { items } = await harvestAll(node, 'listidentifiers');
      expect(items.length).to.equal(25);
      expect(items.every((item) => headerOf(item).status === 'active')).to.equal(true);
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=gone-mark&by_doc_ID=T`)).body.error).to.equal('idDoesNotExist');
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent('http://example.org/gone')}`)).body.error).to.equal('idDoesNotExist');
    });

    it('arguments at day granularity, record datestamps still at 1 second (spec); a from finer than the granularity is badArgument', async () => {
      const { body } = await getJson(`${node.url}/harvest/listidentifiers?from=2020-01-01&until=2020-01-01`);
      expect(((body.listidentifiers as Json[])[0]?.header as Json).datestamp).to.match(/^2020-01-01T\d{2}:\d{2}:\d{2}Z$/);
      const records = (await getJson(`${node.url}/harvest/listrecords?from=2020-01-01&until=2020-01-01`)).body.listrecords as Json[];
      expect(((records[0]?.record as Json).header as Json).datestamp).to.match(/^2020-01-01T\d{2}:\d{2}:\d{2}Z$/);
      expect((await getJson(`${node.url}/harvest/listidentifiers?from=2020-01-01T00:00:00Z`)).body.error).to.equal('badArgument');
      expect((await getJson(`${node.url}/harvest/identify`)).body.identify).to.include({ deletedRecord: 'no', granularity: 'YYYY-MM-DD', earliestDatestamp: '2020-01-01' });
    });
  });

  describe('earliestDatestamp: older documents are not accessible', () => {
    let node: TestNode;
    before(async () => { node = await harvestNode('persistent', harvestData({ earliestDatestamp: '2020-01-01T00:00:20Z' })); });
    after(async () => node.stop());

    it('lists start at earliestDatestamp, getrecord of an older document is idDoesNotExist, identify reports it', async () => {
      const { items } = await harvestAll(node, 'listidentifiers', 'from=2019-01-01');
      expect(items.map((i) => headerOf(i).identifier)).to.deep.equal(['doc-00020', 'doc-00021', 'doc-00022', 'doc-00023', 'doc-00024', 'gone-mark', 'gone-tomb', 'gone-del']);
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=doc-00003&by_doc_ID=T`)).body.error).to.equal('idDoesNotExist');
      expect((await getJson(`${node.url}/harvest/identify`)).body.identify).to.include({ earliestDatestamp: '2020-01-01T00:00:20Z', deletedRecord: 'persistent' });
      expect((await getJson(`${node.url}/harvest/listrecords?until=2020-01-01T00:00:19Z`)).body.error).to.equal('noRecordsMatch');
    });
  });
});
