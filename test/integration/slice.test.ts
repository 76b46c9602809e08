/**
 * GET /slice (spec "Slice (optional)") against a real node and embedded store: 1,000+ documents
 * written raw in the stored shape, a few published through POST /publish, small pages
 * (doc_limit 7, id_limit 50) so every query pages many times.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const ALICE = { authorization: basicAuth('alice', 'alice-password-1') };
const DOC_LIMIT = 7;
const ID_LIMIT = 50;
const RAW = 1050;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Raw live documents: 10 days, ten documents per timestamp (ties), mixed-case IDs, four identity fields. */
function rawDoc(i: number): Doc {
  const id = i % 5 === 0 ? `Doc-${pad(i, 4)}` : `doc-${pad(i, 4)}`;
  const ts = `2024-03-${pad(1 + (i % 10))}T12:00:${pad(Math.floor(i / 100))}.000000Z`;
  const identity: Record<string, string> = { submitter: ['Alice', 'BOB', 'carol'][i % 3] as string, submitter_type: 'agent' };
  if (i % 7 === 0) identity.curator = 'Curator Dan';
  if (i % 11 === 0) identity.owner = 'Owner Eve';
  if (i % 13 === 0) identity.signer = 'Signer Fay';
  const keys = ['common', `mod4-${i % 4}`, ...(i % 2 === 0 ? ['Math'] : []), ...(i % 50 === 0 ? ['Rare', 'rare'] : [])];
  return {
    _id: id, doc_ID: id, doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true,
    TOS: { submission_TOS: 'http://www.learningregistry.org/tos/cc0/v0-5/' }, payload_placement: 'inline',
    payload_schema: ['nsdl_dc'], resource_locator: `http://example.org/r/${i}`, resource_data: `<r>${i}</r>`,
    identity, keys, create_timestamp: ts, update_timestamp: ts, node_timestamp: ts,
  };
}

/** Documents that match every criterion but are not live: never returned. */
function notLive(): Doc[] {
  const base = { ...rawDoc(0), identity: { submitter: 'Alice', submitter_type: 'agent' }, keys: ['common', 'rare'] };
  return [
    { ...base, _id: 'gone-tombstone', doc_ID: 'gone-tombstone', doc_type: 'tombstone' },
    { ...base, _id: 'gone-marked', doc_ID: 'gone-marked', node_deleted: '2024-03-05T00:00:00.000000Z' },
    { ...base, _id: 'gone-deletion', doc_ID: 'gone-deletion', payload_placement: 'none' },
  ];
}

interface Query { identity?: string; any_tags?: string; from?: string; until?: string; ids_only?: string }

/** The expected result, computed independently of the service: every stored document, filtered and ordered. */
let stored: Doc[] = [];
function expected(query: Query): string[] {
  const identity = query.identity?.trim().toLowerCase();
  const tags = query.any_tags?.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
  return stored.filter((doc) => {
    if (doc.doc_type !== 'resource_data' || 'node_deleted' in doc || doc.payload_placement === 'none') return false;
    const ts = doc.node_timestamp as string;
    if (query.from && ts.slice(0, 10) < query.from) return false;
    if (query.until && ts.slice(0, 10) >= query.until) return false;
    const who = Object.entries(doc.identity as Record<string, string>).filter(([k]) => k !== 'submitter_type').map(([, v]) => v.trim().toLowerCase());
    if (identity !== undefined && !who.includes(identity)) return false;
    const keys = (doc.keys as string[]).map((k) => k.trim().toLowerCase());
    return tags === undefined || tags.some((t) => keys.includes(t));
  }).sort((a, b) => (a.node_timestamp as string).localeCompare(b.node_timestamp as string) || ((a._id as string) < (b._id as string) ? -1 : 1))
    .map((doc) => doc._id as string);
}

describe('GET /slice', function () {
  this.timeout(120000);
  let node: TestNode;
  const url = (query: Record<string, string>): string => `${node.url}/slice?${new URLSearchParams(query).toString()}`;

  /** Pages through a slice with its tokens; checks each page's shape, and that the last has a null token (none when it is the first). */
  async function sliceAll(query: Query): Promise<{ ids: string[]; pages: Record<string, unknown>[] }> {
    const ids: string[] = [];
    const pages: Record<string, unknown>[] = [];
    let token: string | undefined;
    for (let page = 0; page < 2000; page += 1) {
      const { status, body } = await getJson(url({ ...query, ...(token ? { resumption_token: token } : {}) } as Record<string, string>));
      expect(status, JSON.stringify(body)).to.equal(200);
      const documents = body.documents as { doc_ID: string }[];
      expect(body.resultCount).to.equal(documents.length);
      expect(documents.length).to.be.at.most(['true', 'T'].includes(query.ids_only ?? '') ? ID_LIMIT : DOC_LIMIT);
      expect(Date.parse(body.replyStart as string)).to.be.at.most(Date.parse(body.replyEnd as string));
      ids.push(...documents.map((d) => d.doc_ID));
      pages.push(body);
      // A slice that fits its first page has no token; the last page of a paged one says null.
      if (page === 0 ? !('resumption_token' in body) : body.resumption_token === null) return { ids, pages };
      token = body.resumption_token as string;
      expect(token).to.be.a('string');
    }
    throw new Error('paging did not terminate');
  }

  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { slice: { service_data: { doc_limit: DOC_LIMIT, id_limit: ID_LIMIT, flow_control: true } } } } });
    await addAccount(node, 'alice', 'alice-password-1');
    const db = node.couch.use(node.names.resourceData);
    const raw = [...Array.from({ length: RAW }, (_, i) => rawDoc(i)), ...notLive()];
    const written = await db.bulk({ docs: raw as never[] });
    expect(written.every((r) => !r.error)).to.equal(true);
    // The real path: published documents (node_timestamp now), one then marked deleted.
    const published = nsdlDocs(3).map((d, i) => ({ ...d, doc_ID: `pub-${i}`, identity: { submitter: 'alice', submitter_type: 'user', curator: 'Published Curator' }, keys: ['Published', 'Rare'] }));
    const result = await postJson(`${node.url}/publish`, { documents: published }, ALICE);
    expect((result.body.document_results as { OK: boolean }[]).every((r) => r.OK), JSON.stringify(result.body)).to.equal(true);
    const removed = await postJson(`${node.url}/delete`, { request_IDs: ['pub-2'] }, ALICE);
    expect(removed.body.document_results).to.deep.equal([{ doc_ID: 'pub-2', OK: true }]);
    stored = (await db.list({ include_docs: true })).rows.map((row) => row.doc as unknown as Doc).filter((doc) => !(doc._id as string).startsWith('_design/'));
  });
  after(async () => node?.stop());

  it('no criteria: every live document once, in (node_timestamp, doc_ID) order, over many small pages', async () => {
    const want = expected({});
    expect(want.length).to.equal(RAW + 2);
    const { ids, pages } = await sliceAll({ ids_only: 'true' });
    expect(ids).to.deep.equal(want);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(pages.length).to.equal(Math.ceil(want.length / ID_LIMIT));
    expect(pages.every((p) => p.keyCount === 1)).to.equal(true);
    expect((pages[0]?.documents as Doc[])[0]).to.deep.equal({ doc_ID: want[0] });
  });

  it('full documents (doc_limit pages) carry the stored document without _id/_rev', async () => {
    const { ids, pages } = await sliceAll({});
    expect(ids).to.deep.equal(expected({}));
    expect(pages.length).to.equal(Math.ceil(ids.length / DOC_LIMIT));
    const entry = (pages[0]?.documents as { doc_ID: string; resource_data_description: Doc }[])[0];
    const doc = stored.find((d) => d._id === entry?.doc_ID) as Doc;
    const { _id, _rev, ...rest } = doc;
    void _id; void _rev;
    expect(entry?.resource_data_description).to.deep.equal(rest);
    const published = (pages.flatMap((p) => p.documents) as { doc_ID: string; resource_data_description: Doc }[]).find((e) => e.doc_ID === 'pub-0');
    expect(published?.resource_data_description.doc_ID).to.equal('pub-0');
  });

  it('identity is case-insensitive and matches submitter, curator, owner and signer', async () => {
    const alice = (await sliceAll({ identity: 'alice', ids_only: 'T' })).ids;
    expect(alice).to.deep.equal(expected({ identity: 'alice' }));
    expect(alice).to.include('pub-0').and.not.include('pub-2').and.not.include('gone-marked');
    expect((await sliceAll({ identity: ' ALICE ', ids_only: 'true' })).ids).to.deep.equal(alice);
    for (const identity of ['bob', 'Curator Dan', 'OWNER EVE', 'signer fay', 'published curator']) {
      const { ids } = await sliceAll({ identity, ids_only: 'true' });
      expect(ids.length, identity).to.be.greaterThan(0);
      expect(ids, identity).to.deep.equal(expected({ identity }));
    }
    expect((await sliceAll({ identity: 'nobody' })).ids).to.deep.equal([]);
  });

  it('any_tags: one tag, several tags (a union without duplicates), case-insensitive', async () => {
    const rare = (await sliceAll({ any_tags: 'RARE' })).ids;
    expect(rare).to.deep.equal(expected({ any_tags: 'rare' }));
    expect(rare).to.include('pub-1').and.not.include('gone-tombstone');
    const { ids, pages } = await sliceAll({ any_tags: 'rare,mod4-1, Published ,nope', ids_only: 'true' });
    expect(ids).to.deep.equal(expected({ any_tags: 'rare,mod4-1,published,nope' }));
    expect(new Set(ids).size).to.equal(ids.length);
    expect(pages[0]?.keyCount).to.equal(4);
    const repeated = await getJson(`${node.url}/slice?any_tags=rare&any_tags=mod4-1&ids_only=true`);
    expect((repeated.body.documents as Doc[]).map((d) => d.doc_ID)).to.deep.equal(expected({ any_tags: 'rare,mod4-1' }).slice(0, ID_LIMIT));
  });

  it('identity AND tags: reads the more selective index and filters by the other', async () => {
    // 'rare' (23 documents) is far smaller than 'alice' (350+): the tag ranges are read.
    const viaTags = await sliceAll({ identity: 'Alice', any_tags: 'rare,zzz' });
    expect(viaTags.ids).to.deep.equal(expected({ identity: 'alice', any_tags: 'rare,zzz' }));
    expect(viaTags.ids.length).to.be.greaterThan(DOC_LIMIT);
    expect(viaTags.pages[0]?.keyCount).to.equal(2);
    // 'signer fay' (81) is smaller than 'common' + 'math' (capped estimates): the identity range is read.
    const viaIdentity = await sliceAll({ identity: 'signer fay', any_tags: 'common,math', ids_only: 'true' });
    expect(viaIdentity.ids).to.deep.equal(expected({ identity: 'signer fay', any_tags: 'common,math' }));
    expect(viaIdentity.pages[0]?.keyCount).to.equal(1);
    const sparse = await sliceAll({ identity: 'bob', any_tags: 'mod4-3', from: '2024-03-04', until: '2024-03-08' });
    expect(sparse.ids).to.deep.equal(expected({ identity: 'bob', any_tags: 'mod4-3', from: '2024-03-04', until: '2024-03-08' }));
  });

  it('from is inclusive and until exclusive, alone and with other criteria', async () => {
    const range = (await sliceAll({ from: '2024-03-03', until: '2024-03-05', ids_only: 'true' })).ids;
    expect(range).to.deep.equal(expected({ from: '2024-03-03', until: '2024-03-05' }));
    const days = new Set(range.map((id) => (stored.find((d) => d._id === id)?.node_timestamp as string).slice(0, 10)));
    expect([...days].sort()).to.deep.equal(['2024-03-03', '2024-03-04']);
    for (const query of [
      { from: '2024-03-10', ids_only: 'true' }, { until: '2024-03-02', ids_only: 'true' },
      { identity: 'carol', from: '2024-03-09' }, { any_tags: 'mod4-2,rare', until: '2024-03-03' },
      { identity: 'alice', any_tags: 'math', from: '2024-03-02', until: '2024-03-04' },
    ]) {
      expect((await sliceAll(query)).ids, JSON.stringify(query)).to.deep.equal(expected(query));
    }
    expect((await sliceAll({ from: '2024-03-03', until: '2024-03-03' })).ids).to.deep.equal([]);
    expect((await sliceAll({ from: '2999-01-01' })).ids).to.deep.equal([]);
  });

  it('bad arguments are 400 {"OK": false, "error": ...}', async () => {
    for (const query of [
      'colour=red', 'from=2024-02-30', 'from=2024-3-1', 'until=yesterday', 'from=2024-03-05&until=2024-03-04',
      'ids_only=yes', 'ids_only=', 'identity=a&identity=b', 'identity=', 'any_tags=,', 'resumption_token=',
    ]) {
      const { status, body } = await getJson(`${node.url}/slice?${query}`);
      expect(status, query).to.equal(400);
      expect(body.OK, query).to.equal(false);
      expect(body.error, query).to.be.a('string').and.not.equal('');
    }
  });

  it('the last page of a paged slice says resumption_token null, as obtain and the JSON harvest do; a slice on one page has no token', async () => {
    const first = await getJson(url({ any_tags: 'rare', ids_only: 'T' }));
    expect(first.body.documents).to.have.length(expected({ any_tags: 'rare' }).length);
    expect(first.body).to.not.have.property('resumption_token');
    const paged = await getJson(url({ any_tags: 'rare' }));
    let token = paged.body.resumption_token;
    expect(token).to.be.a('string');
    let last: Record<string, unknown> = paged.body;
    while (typeof token === 'string') {
      last = (await getJson(url({ resumption_token: token }))).body;
      token = last.resumption_token;
    }
    expect(last).to.have.property('resumption_token', null);
    const obtain = await getJson(`${node.url}/obtain?ids_only=T`);
    expect(obtain.body.resumption_token, 'obtain pages too (id_limit 1000 of 1,000+ documents)').to.be.a('string');
    const obtainLast = await getJson(`${node.url}/obtain?ids_only=T&resumption_token=${encodeURIComponent(obtain.body.resumption_token as string)}`);
    expect(obtainLast.body).to.have.property('resumption_token', null);
  });

  it('a token sent with ids_only stated otherwise is refused (ids_only=F is an argument, not the token alone)', async () => {
    const first = await getJson(url({ ids_only: 'T' }));
    const token = first.body.resumption_token as string;
    expect((await getJson(url({ resumption_token: token }))).status).to.equal(200);
    expect((await getJson(url({ ids_only: 'T', resumption_token: token }))).status).to.equal(200);
    const refused = await getJson(url({ ids_only: 'F', resumption_token: token }));
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.match(/other request arguments/);
  });

  it('tokens: junk, modified and other-argument tokens are refused; a repeated token gives the same page', async () => {
    const first = await getJson(url({ identity: 'bob' }));
    const token = first.body.resumption_token as string;
    expect(token).to.be.a('string');
    const again = [await getJson(url({ identity: 'bob', resumption_token: token })), await getJson(url({ identity: 'bob', resumption_token: token }))];
    expect(again[1]?.body.documents).to.deep.equal(again[0]?.body.documents);
    const [body, mac] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { k: [string, string] };
    payload.k = ['2000-01-01T00:00:00.000000Z', 'a'];
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const flipped = `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;
    for (const [query, what] of [
      [{ identity: 'bob', resumption_token: 'junk' }, 'junk'],
      [{ identity: 'bob', resumption_token: forged }, 'modified cursor'],
      [{ identity: 'bob', resumption_token: flipped }, 'flipped character'],
      [{ identity: 'carol', resumption_token: token }, 'other identity'],
      [{ identity: 'bob', ids_only: 'true', resumption_token: token }, 'ids_only added'],
    ] as [Record<string, string>, string][]) {
      const { status, body: answer } = await getJson(url(query));
      expect(status, what).to.equal(400);
      expect(answer.OK, what).to.equal(false);
      expect(answer.error, what).to.match(/resumption token/);
    }
    // The token alone continues the same slice (issue 13, item 4).
    const alone = await getJson(url({ resumption_token: token }));
    expect(alone.status).to.equal(200);
    expect(alone.body.documents).to.deep.equal(again[0]?.body.documents);
  });

  it('documents published while a client pages do not join that result, and paging ends', async () => {
    const first = await getJson(url({ any_tags: 'published', ids_only: 'true' }));
    expect(first.body.documents).to.deep.equal([{ doc_ID: 'pub-0' }, { doc_ID: 'pub-1' }]);
    expect(first.body).to.not.have.property('resumption_token');
    const paged = await getJson(url({ identity: 'alice' }));
    const later = nsdlDocs(1).map((d) => ({ ...d, doc_ID: 'pub-late', identity: { submitter: 'alice', submitter_type: 'user' } }));
    expect((await postJson(`${node.url}/publish`, { documents: later }, ALICE)).status).to.equal(200);
    const ids = (paged.body.documents as Doc[]).map((d) => d.doc_ID as string);
    let token = paged.body.resumption_token as string | undefined;
    while (token) {
      const { body } = await getJson(url({ identity: 'alice', resumption_token: token }));
      ids.push(...(body.documents as Doc[]).map((d) => d.doc_ID as string));
      token = body.resumption_token as string | undefined;
    }
    expect(ids).to.deep.equal(expected({ identity: 'alice' }));
    expect((await sliceAll({ identity: 'alice', ids_only: 'true' })).ids).to.include('pub-late');
  });
});

describe('GET /slice without flow control', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { slice: { service_data: { flow_control: false } } } } });
    // More than one streamed chunk of documents (200) and of identifiers (1,000).
    stored = [...Array.from({ length: RAW }, (_, i) => rawDoc(i)), ...notLive(), { ...rawDoc(7), _id: 'comma-key', doc_ID: 'comma-key', keys: ['Interest, Simple Interest'] }];
    await node.couch.use(node.names.resourceData).bulk({ docs: stored as never[] });
  });
  after(async () => node?.stop());

  const slice = (query: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => getJson(`${node.url}/slice?${new URLSearchParams(query).toString()}`);

  it('answers the whole slice, past the page limits, with no token (spec: a token only "when the node limits result counts")', async () => {
    const queries: Record<string, string>[] = [{}, { any_tags: 'common' }, { identity: 'alice', any_tags: 'math,rare' }, { from: '2024-03-03', until: '2024-03-06' }];
    for (const query of queries) {
      const { status, body } = await slice(query);
      expect(status, JSON.stringify(query)).to.equal(200);
      const ids = (body.documents as { doc_ID: string; resource_data_description?: Doc }[]).map((entry) => entry.doc_ID);
      expect(ids, JSON.stringify(query)).to.deep.equal(expected(query));
      expect(body.resultCount).to.equal(ids.length);
      expect(body).to.not.have.property('resumption_token');
      expect(Object.keys(body)).to.deep.equal(['replyStart', 'keyCount', 'documents', 'resultCount', 'replyEnd']);
      expect((body.documents as { resource_data_description?: Doc }[])[0]?.resource_data_description?.doc_ID).to.equal(ids[0]);
    }
    const ids = await slice({ ids_only: 'T' });
    expect((ids.body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID)).to.deep.equal(expected({}));
    // Past the default id_limit (1,000), which the description no longer states.
    expect(ids.body.documents as object[]).to.have.length.above(1000).and.to.satisfy((entries: object[]) => entries.every((entry) => Object.keys(entry).join() === 'doc_ID'));
  });

  it('any_tags names a key holding a comma by quoting it; unquoted, the comma separates tags', async () => {
    const quoted = await slice({ any_tags: '"interest, simple interest",rare' });
    expect((quoted.body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID)).to.deep.equal([...expected({ any_tags: 'rare' }), 'comma-key'].sort((a, b) => (stored.find((d) => d._id === a)?.node_timestamp as string).localeCompare(stored.find((d) => d._id === b)?.node_timestamp as string) || (a < b ? -1 : 1)));
    const bare = await slice({ any_tags: 'interest, simple interest' });
    expect(bare.body.documents).to.deep.equal([]);
    const open = await slice({ any_tags: '"interest, simple' });
    expect(open.status).to.equal(400);
    expect(open.body).to.deep.include({ OK: false, error: 'any_tags has a quote that is not closed' });
  });

  it('its description states no page limits (they would limit nothing)', async () => {
    const { body } = await getJson(`${node.url}/services`);
    const description = (body.services as { service_name: string; service_data: Record<string, unknown> }[]).find((service) => service.service_name === 'Slice');
    expect(description?.service_data).to.include({ flow_control: false }).and.to.not.have.any.keys('doc_limit', 'id_limit');
  });

  it('refuses tokens, in the JSON error form', async () => {
    const refused = await slice({ identity: 'alice', resumption_token: 'abc.def' });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.include({ OK: false });
    expect(refused.body.error).to.match(/flow control/);
  });
});
