/**
 * View keys built from text users choose (doc_ID, tag, identity, payload_schema) answer the same
 * on both stores (src/storage/view-keys.ts). CouchDB collates view keys with ICU, under which
 * canonically equivalent strings (NFC "é", NFD "e\u0301") and strings that differ only by
 * ignorable characters (soft hyphen, zero-width space) are equal keys; the embedded store
 * compares code units. A differential audit found, on CouchDB only: JSON harvest, OAI-PMH lists
 * and obtain paging forever through doc_IDs of one node_timestamp that differ only by ignorable
 * characters, records listed twice across a page boundary, slices by tag or identity and lookups
 * by resource locator returning other strings' documents, and identity AND tags answering
 * nothing where each alone matched. Exact code-unit matching and order is what both now do.
 * Run on the suite's store: embedded by default, CouchDB 3.5 with TEST_COUCHDB_URL.
 */
import { expect } from 'chai';
import { startTestNode, getJson, type TestNode } from '../support/node.js';
import type { Doc } from '../support/documents.js';
import { storeName } from '../support/store.js';
import { oaiIdentifierOf } from '../../src/protocol/oai-pmh/identifiers.js';

type Json = Record<string, unknown>;
const TS = '2024-05-01T10:00:00.000000Z';
const PAGE = 3;
const FORMATS = [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }];

/** doc_IDs equal under ICU: ignorable characters, and canonically equivalent pairs. */
const IGNORABLE_IDS = ['loop', 'loop\u00AD', 'loop\u200B', 'loop\u00AD\u00AD', 'loop\u2060', 'loop\u200B\u200B', 'loop\u00AD\u200B', 'loop\uFEFF'];
const EQUIVALENT_IDS = ['q0-e\u0301', 'q0-\u00e9', 'q1-e\u0301', 'q1-\u00e9', 'q2-e\u0301', 'q2-\u00e9'];
const TAGGED: [string, string][] = [['tag-plain', 'math'], ['tag-shy', 'ma\u00ADth'], ['tag-zwsp', 'math\u200B'], ['tag-nfc', 'm\u00e4th'], ['tag-nfd', 'ma\u0308th']];
const IDENTIFIED: [string, string][] = [['who-nfc', '\u00c5lice'], ['who-nfd', 'A\u030alice'], ['who-carol', 'Carol']];
const LOCATED: [string, string][] = [['at-nfc', 'http://example.org/r\u00e9'], ['at-nfd', 'http://example.org/re\u0301']];

function stored(id: string, extra: Doc = {}): Doc {
  return {
    _id: id, doc_ID: id, doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true,
    TOS: { submission_TOS: 'http://www.learningregistry.org/tos/cc0/v0-5/' }, payload_placement: 'inline',
    payload_schema: ['nsdl_dc'], resource_locator: `http://example.org/${encodeURIComponent(id)}`, resource_data: '<r/>',
    identity: { submitter: 'Someone', submitter_type: 'agent' }, keys: ['common'],
    create_timestamp: TS, update_timestamp: TS, node_timestamp: TS, ...extra,
  };
}

const ALL_IDS = [...IGNORABLE_IDS, ...EQUIVALENT_IDS, ...TAGGED.map(([id]) => id), ...IDENTIFIED.map(([id]) => id), ...LOCATED.map(([id]) => id)];
/** Code-unit order, which both stores give rows of one node_timestamp. */
const CODE_UNIT_ORDER = [...ALL_IDS].sort();

describe(`view keys from users' text on the ${storeName}: exact matches, and every list ends with each record once`, function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    const service = { doc_limit: PAGE, id_limit: PAGE, flow_control: true };
    node = await startTestNode({ nodeConfig: { services: {
      obtain: { service_data: service }, slice: { service_data: service },
      harvest: { service_data: { ...service, granularity: 'YYYY-MM-DDThh:mm:ssZ', metadataformats: FORMATS } },
      oai_pmh: { service_data: { ...service, granularity: 'YYYY-MM-DDThh:mm:ssZ' } },
    } } });
    const docs = [
      ...IGNORABLE_IDS.map((id) => stored(id)), ...EQUIVALENT_IDS.map((id) => stored(id)),
      ...TAGGED.map(([id, tag]) => stored(id, { keys: [tag] })),
      ...IDENTIFIED.map(([id, who]) => stored(id, { identity: { submitter: who, submitter_type: 'agent' }, keys: id === 'who-carol' ? ['ma\u00ADth'] : ['common'] })),
      ...LOCATED.map(([id, locator]) => stored(id, { resource_locator: locator })),
    ];
    const answers = await node.couch.use(node.names.resourceData).bulk({ docs: docs as never[] });
    expect(answers.filter((answer) => answer.error)).to.deep.equal([]);
  });
  after(async () => node?.stop());

  /** Follows a list's tokens to its end (at most 60 pages): every page's items. */
  async function follow(first: string, next: (token: string) => string, items: (body: Json) => string[]): Promise<string[]> {
    const seen: string[] = [];
    let url = first;
    for (let page = 0; page < 60; page += 1) {
      const { status, body } = await getJson(url);
      expect(status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      seen.push(...items(body));
      const token = body.resumption_token;
      if (typeof token !== 'string') return seen;
      url = next(token);
    }
    throw new Error(`the list did not end after 60 pages (${seen.length} items)`);
  }

  it('JSON harvest listidentifiers ends, each doc_ID once, in code-unit order', async () => {
    const ids = await follow(`${node.url}/harvest/listidentifiers`, (token) => `${node.url}/harvest/listidentifiers?resumption_token=${encodeURIComponent(token)}`,
      (body) => (body.listidentifiers as Json[]).map((item) => String((item.header as Json).identifier)));
    expect(ids).to.deep.equal(CODE_UNIT_ORDER);
  });

  it('obtain of every document (ids_only, newest first) ends, each doc_ID once', async () => {
    const ids = await follow(`${node.url}/obtain?ids_only=T`, (token) => `${node.url}/obtain?ids_only=T&resumption_token=${encodeURIComponent(token)}`,
      (body) => (body.documents as Json[]).map((entry) => String(entry.doc_ID)));
    expect(ids).to.deep.equal([...CODE_UNIT_ORDER].reverse());
  });

  it('OAI-PMH ListIdentifiers by metadataPrefix ends, each record once', async () => {
    const identifiers: string[] = [];
    let query = 'verb=ListIdentifiers&metadataPrefix=nsdl_dc';
    for (let page = 0; ; page += 1) {
      if (page >= 60) throw new Error(`ListIdentifiers did not end after 60 pages (${identifiers.length} headers)`);
      const xml = await (await fetch(`${node.url}/OAI-PMH?${query}`)).text();
      identifiers.push(...[...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((match) => match[1] as string));
      const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
      if (!token) break;
      query = `verb=ListIdentifiers&resumptionToken=${encodeURIComponent(token)}`;
    }
    expect(identifiers).to.deep.equal(CODE_UNIT_ORDER.map(oaiIdentifierOf));
  });

  async function slice(query: string): Promise<string[]> {
    return follow(`${node.url}/slice?ids_only=T&${query}`, (token) => `${node.url}/slice?ids_only=T&${query}&resumption_token=${encodeURIComponent(token)}`,
      (body) => (body.documents as Json[]).map((entry) => String(entry.doc_ID)));
  }

  it('slice by tag matches the tag exactly (after lower-casing and trimming), not its canonical equivalents or ignorable variants', async () => {
    expect(await slice('any_tags=math')).to.deep.equal(['tag-plain']);
    expect(await slice('any_tags=MATH')).to.deep.equal(['tag-plain']);
    expect(await slice(`any_tags=${encodeURIComponent('ma\u00ADth')}`)).to.deep.equal(['tag-shy', 'who-carol']);
    expect(await slice(`any_tags=${encodeURIComponent('m\u00e4th')}`)).to.deep.equal(['tag-nfc']);
    expect(await slice(`any_tags=${encodeURIComponent('ma\u0308th')}`)).to.deep.equal(['tag-nfd']);
  });

  it('slice by identity matches exactly, and identity AND tags is the intersection of the two', async () => {
    expect(await slice(`identity=${encodeURIComponent('\u00e5lice')}`)).to.deep.equal(['who-nfc']);
    expect(await slice(`identity=${encodeURIComponent('a\u030alice')}`)).to.deep.equal(['who-nfd']);
    expect(await slice('identity=carol')).to.deep.equal(['who-carol']);
    expect(await slice(`identity=carol&any_tags=${encodeURIComponent('ma\u00ADth')}`)).to.deep.equal(['who-carol']);
    expect(await slice('identity=carol&any_tags=math')).to.deep.equal([]);
  });

  it('obtain and getrecord by resource locator return that locator\'s documents only', async () => {
    for (const [id, locator] of LOCATED) {
      const obtained = await getJson(`${node.url}/obtain?request_ID=${encodeURIComponent(locator)}&by_resource_ID=T`);
      expect(((obtained.body.documents as Json[])[0]?.document as Json[]).map((doc) => doc.doc_ID), locator).to.deep.equal([id]);
      const record = await getJson(`${node.url}/harvest/getrecord?by_resource_ID=T&request_ID=${encodeURIComponent(locator)}`);
      expect(((record.body.getrecord as Json).record as Json[]).map((item) => (item.header as Json).identifier), locator).to.deep.equal([id]);
    }
  });
});
