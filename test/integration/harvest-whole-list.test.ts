/**
 * Basic Harvest without flow control (harvest service_data.flow_control false, the spec's "Flow
 * control and sets are unsupported"): each listrecords/listidentifiers is answered whole, streamed
 * from the view in chunks of 500 (harvest-whole-list.ts), and stays valid JSON when the store fails midway.
 */
import { expect } from 'chai';
import { startTestNode, getJson, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { nodeOnOwnStore, readWhileStoreStops } from '../support/midway.js';

type Json = Record<string, unknown>;
const TOTAL = 1203; // more than two store reads of 500
const harvestData = { granularity: 'YYYY-MM-DDThh:mm:ssZ', flow_control: false, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }] };
const id = (i: number): string => `doc-${String(i).padStart(5, '0')}`;
const headerOf = (item: Json): Json => ((item.record as Json | undefined)?.header ?? item.header) as Json;

describe('Basic Harvest without flow control: each list answered whole', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { harvest: { service_data: harvestData } } } });
    await loadStoredCorpus(node, TOTAL);
  });
  after(async () => node.stop());

  it('listrecords: every record in one streamed answer, in order, no resumption_token, OK true', async () => {
    const response = await fetch(`${node.url}/harvest/listrecords`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(response.headers.get('transfer-encoding')).to.equal('chunked');
    const body = await response.json() as Json;
    expect(body).to.include({ OK: true });
    expect(body).to.not.have.property('resumption_token');
    expect(body.request).to.deep.include({ verb: 'listrecords', from: null, until: null });
    expect(body.responseDate).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const items = body.listrecords as Json[];
    expect(items.map((item) => headerOf(item).identifier)).to.deep.equal(Array.from({ length: TOTAL }, (_, i) => id(i)));
    expect(((items[600]?.record as Json).resource_data as Json).doc_ID).to.equal(id(600));
  });

  // A description that stated doc_limit and id_limit here told harvesters of limits no list applies.
  it('the Basic Harvest description states no page limits', async () => {
    const { body } = await getJson(`${node.url}/services`);
    const harvest = (body.services as Json[]).find((service) => service.service_name === 'Basic Harvest') as Json;
    expect(harvest.service_data).to.include({ flow_control: false });
    expect(harvest.service_data).to.not.have.any.keys('doc_limit', 'id_limit');
  });

  it('listidentifiers and a from/until range, by GET and POST', async () => {
    const all = (await getJson(`${node.url}/harvest/listidentifiers`)).body;
    expect((all.listidentifiers as Json[]).length).to.equal(TOTAL);
    expect((all.listidentifiers as Json[])[0]).to.not.have.property('record');
    const ranged = await fetch(`${node.url}/harvest/listrecords`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '2020-01-01T00:00:10Z', until: '2020-01-01T00:00:19Z' }) });
    const body = await ranged.json() as Json;
    expect((body.listrecords as Json[]).map((item) => headerOf(item).identifier)).to.deep.equal(Array.from({ length: 10 }, (_, i) => id(10 + i)));
  });

  it('a resumption token is badResumptionToken; no match is still noRecordsMatch', async () => {
    const token = (await getJson(`${node.url}/harvest/listrecords?resumption_token=abc`)).body;
    expect(token).to.include({ OK: false, error: 'badResumptionToken' });
    expect(token.message).to.match(/flow control/);
    expect((await getJson(`${node.url}/harvest/listrecords?until=2019-01-01T00:00:00Z`)).body).to.include({ OK: false, error: 'noRecordsMatch' });
  });

  it('OAI-PMH with the JSON prefix behaves as Basic Harvest: the whole list too', async () => {
    const body = (await getJson(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=LR_JSON_0.10.0`)).body;
    expect(body.OK).to.equal(true);
    expect((body.listidentifiers as Json[]).length).to.equal(TOTAL);
  });
});

describe('Basic Harvest whole list when CouchDB fails midway', () => {
  let own: Awaited<ReturnType<typeof nodeOnOwnStore>>;
  before(async () => { own = await nodeOnOwnStore({ services: { harvest: { service_data: harvestData } } }, 3000); });
  after(async () => own.stop());

  it('ends the list with OK false and the reason instead of truncating it', async () => {
    const text = await readWhileStoreStops(`${own.node.url}/harvest/listidentifiers`, () => own.store.stop());
    const body = JSON.parse(text) as { listidentifiers: unknown[]; OK: boolean; error?: string; message?: string };
    expect(body.OK).to.equal(false);
    expect(body.error).to.equal('incomplete');
    expect(body.message).to.match(/^the list is incomplete after \d+ records: /);
    expect(body.listidentifiers.length).to.be.greaterThan(0).and.lessThan(3000);
  });
});
