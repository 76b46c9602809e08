/** GET and POST /obtain (spec "Basic Obtain", "Flow-control states for obtain"). */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, currentStatus, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

type Entry = { doc_ID: string; document?: Doc[] | null };
type Page = { documents: Entry[]; resumption_token?: string | null };

describe('Basic Obtain with flow control', () => {
  let node: TestNode;
  let corpus: Doc[];
  const ALICE = { authorization: basicAuth('alice', 'alice-password-1') };
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { doc_limit: 25, id_limit: 40, flow_control: true, spec_kv_only: false } } } } });
    corpus = await loadStoredCorpus(node, 1050);
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  const all = async (query: string): Promise<{ status: number; body: Page }> => {
    const { status, body } = await getJson(`${node.url}/obtain${query}`);
    return { status, body: body as unknown as Page };
  };

  it('pages through 1,050 documents newest first, with complete coverage and no duplicates', async () => {
    const seen: string[] = [];
    let token: string | null | undefined;
    let pages = 0;
    do {
      const { status, body } = await all(token ? `?resumption_token=${encodeURIComponent(token)}` : '');
      expect(status).to.equal(200);
      expect(body.documents.length).to.be.at.most(25);
      for (const entry of body.documents) {
        seen.push(entry.doc_ID);
        expect(entry.document?.[0]?.doc_ID).to.equal(entry.doc_ID);
        expect(entry.document?.[0]).to.not.have.any.keys('_id', '_rev');
      }
      token = body.resumption_token;
      pages += 1;
    } while (token);
    expect(pages).to.equal(42);
    expect(new Set(seen).size).to.equal(1050);
    expect(seen[0]).to.equal('doc-01049');
    expect(seen[seen.length - 1]).to.equal('doc-00000');
  });

  it('the last page carries resumption_token null', async () => {
    let body = (await all('?ids_only=T')).body;
    while (body.resumption_token) body = (await all(`?ids_only=T&resumption_token=${encodeURIComponent(body.resumption_token)}`)).body;
    expect(body).to.have.property('resumption_token', null);
  });

  it('ids_only pages by id_limit and returns IDs only', async () => {
    const { body } = await all('?ids_only=T&request_ID=ignored');
    expect(body.documents).to.have.length(40);
    expect(body.documents[0]).to.deep.equal({ doc_ID: 'doc-01049' });
    expect(body.resumption_token).to.be.a('string');
  });

  it('an ids_only list continues with the token alone, as clients of the original node do (it required the token alone)', async () => {
    const first = (await all('?ids_only=T')).body;
    const seen = first.documents.map((d) => d.doc_ID);
    let body = first;
    while (body.resumption_token) {
      body = (await all(`?resumption_token=${encodeURIComponent(body.resumption_token)}`)).body;
      expect(body.documents.every((d) => d.document === undefined)).to.equal(true);
      seen.push(...body.documents.map((d) => d.doc_ID));
    }
    expect(body).to.have.property('resumption_token', null);
    expect(new Set(seen).size).to.equal(1050);
    // ids_only=F stated with that token is still another request.
    const { status } = await getJson(`${node.url}/obtain?ids_only=F&resumption_token=${encodeURIComponent(first.resumption_token as string)}`);
    expect(status).to.equal(500);
  });

  it('the same token may be repeated (error recovery) and gives the same page', async () => {
    const first = (await all('')).body;
    const token = encodeURIComponent(first.resumption_token as string);
    const a = (await all(`?resumption_token=${token}`)).body;
    const b = (await all(`?resumption_token=${token}`)).body;
    expect(a.documents.map((d) => d.doc_ID)).to.deep.equal(b.documents.map((d) => d.doc_ID));
    expect(a.documents[0]?.doc_ID).to.equal('doc-01024');
  });

  describe('flow control errors: HTTP 500, OK false', () => {
    const expectFlowError = async (query: string, pattern: RegExp): Promise<void> => {
      const { status, body } = await getJson(`${node.url}/obtain${query}`);
      expect(status).to.equal(500);
      expect(body.OK).to.equal(false);
      expect(String(body.error)).to.match(/^flow control error: /).and.to.match(pattern);
    };
    it('a junk token (or a token on a first call)', async () => { await expectFlowError('?resumption_token=junk', /not one this node issued/); });
    it('a modified token', async () => {
      const token = (await all('')).body.resumption_token as string;
      const [payload, mac] = token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload as string, 'base64url').toString()), k: ['2099-01-01', 'x'] })).toString('base64url');
      await expectFlowError(`?resumption_token=${forged}.${mac}`, /modified/);
    });
    it('a token with other parameters than it was issued for', async () => {
      const token = (await all('')).body.resumption_token as string;
      await expectFlowError(`?ids_only=T&resumption_token=${encodeURIComponent(token)}`, /another request|other request/);
    });
    it('a token continuing a request with IDs', async () => {
      const token = (await all('')).body.resumption_token as string;
      const { status, body } = await postJson(`${node.url}/obtain`, { request_IDs: ['doc-00001'], by_doc_ID: true, resumption_token: token });
      expect(status).to.equal(500);
      expect(body.error).to.match(/^flow control error/);
    });
    it('a document published between two page requests breaks the sequence', async () => {
      const token = (await all('')).body.resumption_token as string;
      const published = await postJson(`${node.url}/publish`, { documents: [{ ...nsdlDocs(1)[0], doc_ID: 'between-pages' }] }, ALICE);
      expect((published.body.document_results as { OK: boolean }[])[0]?.OK).to.equal(true);
      await expectFlowError(`?resumption_token=${encodeURIComponent(token)}`, /changed since the first page/);
      const fresh = (await all('')).body;
      expect(fresh.documents[0]?.doc_ID).to.equal('between-pages');
    });
  });

  describe('requests with IDs', () => {
    it('by_resource_ID (the default) returns every live document of the locator, aligned 1:1, null when unknown', async () => {
      const { status, body } = await postJson(`${node.url}/obtain`, { request_IDs: ['http://example.org/r/7', 'http://nowhere.example/', 'http://example.org/r/8'] });
      expect(status).to.equal(200);
      const docs = (body as unknown as Page).documents;
      expect(docs.map((d) => d.doc_ID)).to.deep.equal(['http://example.org/r/7', 'http://nowhere.example/', 'http://example.org/r/8']);
      expect(docs[0]?.document?.map((d) => d.doc_ID)).to.deep.equal(['doc-00007', 'doc-00407', 'doc-00807']);
      expect(docs[1]?.document).to.equal(null);
      expect(body).to.not.have.property('resumption_token');
    });

    it('GET with request_ID (and request_id) and by_doc_ID=T', async () => {
      for (const name of ['request_ID', 'request_id']) {
        const { body } = await all(`?${name}=doc-00003&by_doc_ID=T`);
        expect(body.documents).to.have.length(1);
        expect(body.documents[0]?.document?.[0]?.doc_ID).to.equal('doc-00003');
      }
      expect((await all('?request_ID=doc-00003&by_doc_ID=true')).body.documents[0]?.document).to.have.length(1);
      expect((await all('?request_ID=missing&by_doc_ID=T')).body.documents[0]?.document).to.equal(null);
    });

    it('both flags false (by_resource_ID=F, by_doc_ID absent or F): the IDs are doc_IDs', async () => {
      for (const flags of ['by_resource_ID=F', 'by_resource_ID=false&by_doc_ID=F']) {
        expect((await all(`?request_ID=doc-00003&${flags}`)).body.documents[0]?.document?.map((d) => d.doc_ID), flags).to.deep.equal(['doc-00003']);
        expect((await all(`?request_ID=${encodeURIComponent('http://example.org/r/3')}&${flags}`)).body.documents[0]?.document, flags).to.equal(null);
      }
      for (const flags of [{ by_resource_ID: false }, { by_resource_ID: 'F', by_doc_ID: false }]) {
        const { body } = await postJson(`${node.url}/obtain`, { request_IDs: ['doc-00004', 'http://example.org/r/4'], ...flags });
        expect((body as unknown as Page).documents.map((d) => d.document?.map((doc) => doc.doc_ID) ?? null)).to.deep.equal([['doc-00004'], null]);
      }
      // by_doc_ID=F alone leaves by_resource_ID at its default, TRUE.
      expect((await all(`?request_ID=${encodeURIComponent('http://example.org/r/3')}&by_doc_ID=F`)).body.documents[0]?.document?.map((d) => d.doc_ID)).to.deep.equal(['doc-00003', 'doc-00403', 'doc-00803']);
    });

    it('results align 1:1 with the request IDs (rule 2): a repeated ID is answered at each of its places; many IDs are answered whole, streamed in order; past 10,000 IDs, repeats counted, is an error', async () => {
      const entries = (page: Record<string, unknown>): [string, string[] | null][] => (page as unknown as Page).documents.map((d) => [d.doc_ID, d.document?.map((doc) => doc.doc_ID as string) ?? null]);
      const twice = await postJson(`${node.url}/obtain`, { request_IDs: ['doc-00005', 'missing', 'doc-00005', 'doc-00006', 'missing'], by_doc_ID: true });
      expect(entries(twice.body)).to.deep.equal([['doc-00005', ['doc-00005']], ['missing', null], ['doc-00005', ['doc-00005']], ['doc-00006', ['doc-00006']], ['missing', null]]);
      const locators = await postJson(`${node.url}/obtain`, { request_IDs: ['http://example.org/r/7', 'http://example.org/r/8', 'http://example.org/r/7'] });
      expect(entries(locators.body)).to.deep.equal([
        ['http://example.org/r/7', ['doc-00007', 'doc-00407', 'doc-00807']], ['http://example.org/r/8', ['doc-00008', 'doc-00408', 'doc-00808']], ['http://example.org/r/7', ['doc-00007', 'doc-00407', 'doc-00807']],
      ]);
      const repeated = await postJson(`${node.url}/obtain`, { request_IDs: Array.from({ length: 3000 }, () => 'doc-00005'), by_doc_ID: true });
      expect(entries(repeated.body)).to.deep.equal(Array.from({ length: 3000 }, () => ['doc-00005', ['doc-00005']]));
      // Repeats within a lookup batch of 50 and across batches, among unknown IDs.
      const ids = Array.from({ length: 230 }, (_, i) => (i % 7 === 3 ? `missing-${i % 4}` : `doc-${String(1049 - (i % 90)).padStart(5, '0')}`));
      const response = await fetch(`${node.url}/obtain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request_IDs: ids, by_doc_ID: true }) });
      expect(response.headers.get('transfer-encoding')).to.equal('chunked');
      const many = (await response.json()) as Page;
      expect(many.documents.map((d) => d.doc_ID)).to.deep.equal(ids);
      expect(many.documents.map((d) => d.document?.[0]?.doc_ID ?? null)).to.deep.equal(ids.map((id) => (id.startsWith('missing') ? null : id)));
      const spread = await postJson(`${node.url}/obtain`, { request_IDs: Array.from({ length: 120 }, (_, i) => `http://example.org/r/${i % 40}`) });
      expect((spread.body as unknown as Page).documents.map((d) => d.document?.length)).to.deep.equal(Array.from({ length: 120 }, () => 3));
      const tooMany = await postJson(`${node.url}/obtain`, { request_IDs: Array.from({ length: 10001 }, (_, i) => `id-${i % 10}`) });
      expect(tooMany.status).to.equal(500);
      expect(tooMany.body).to.deep.equal({ OK: false, error: 'too many request_IDs: 10001, the limit is 10000 (service_data.request_id_limit)' });
    });

    it('a refused request (HTTP 500 by the spec) is logged as refused, not as a node error with a stack', async () => {
      const before = node.logs.length;
      expect((await getJson(`${node.url}/obtain?resumption_token=abc`)).status).to.equal(500);
      const lines = node.logs.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
      expect(lines.filter((line) => line.level >= 50)).to.deep.equal([]);
      expect(lines.some((line) => line.msg === 'request refused')).to.equal(true);
    });

    it('both flags true is an error', async () => {
      const { status, body } = await getJson(`${node.url}/obtain?request_ID=x&by_doc_ID=T&by_resource_ID=T`);
      expect(status).to.equal(500);
      expect(body).to.deep.equal({ OK: false, error: 'by_doc_ID and by_resource_ID cannot both be true' });
    });

    it('bad booleans and unknown arguments are errors', async () => {
      expect((await getJson(`${node.url}/obtain?by_doc_ID=maybe`)).body.error).to.match(/by_doc_ID must be T or F/);
      expect((await getJson(`${node.url}/obtain?colour=red`)).body.error).to.match(/unknown argument colour/);
      expect((await postJson(`${node.url}/obtain`, { request_IDs: 'x' })).body.error).to.match(/request_IDs must be an array/);
      expect((await postJson(`${node.url}/obtain`, '{bad')).status).to.equal(500);
    });

    it('tombstoned, marked and deletion documents are never returned; a replaced doc_ID gives null', async () => {
      const db = node.couch.use(node.names.resourceData);
      const [a, b] = await Promise.all([db.get('doc-00010'), db.get('doc-00011')]) as unknown as Doc[];
      await db.bulk({ docs: [
        { _id: 'doc-00010', _rev: a?._rev, doc_type: 'tombstone', doc_ID: 'doc-00010', replaced_by: { doc_ID: 'x' } },
        { ...b, node_deleted: '2024-01-01T00:00:00.000000Z' },
      ] });
      const { body } = await postJson(`${node.url}/obtain`, { request_IDs: ['doc-00010', 'doc-00011', 'doc-00012'], by_doc_ID: true });
      expect((body as unknown as Page).documents.map((d) => d.document === null)).to.deep.equal([true, true, false]);
      const locator = await postJson(`${node.url}/obtain`, { request_IDs: ['http://example.org/r/10'] });
      expect((locator.body as unknown as Page).documents[0]?.document?.map((d) => d.doc_ID)).to.deep.equal(['doc-00410', 'doc-00810']);
      expect(corpus).to.have.length(1050);
    });
  });
});

describe('Basic Obtain without flow control', () => {
  let node: TestNode;
  before(async () => {
    // doc_limit null: no limit stated, so ALL returns all (spec "Service_data by service"); id_limit left out keeps the node's 1000.
    node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { flow_control: false, spec_kv_only: true, doc_limit: null } } } } });
    await loadStoredCorpus(node, 1200, { extra: (i) => ({ X_local_note: `note ${i}` }) });
  });
  after(async () => node.stop());

  // A CONFIG that left a limit out lost it: the description stated none and ALL answered every id.
  it('keeps the limit a CONFIG leaves out (id_limit: the 1000 most recent ids) and states no limit it sets to null', async () => {
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: Record<string, unknown> }[];
    expect(services.find((s) => s.service_name === 'Basic Obtain')?.service_data).to.deep.equal({ id_limit: 1000, spec_kv_only: true, flow_control: false, msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
    const { status, body } = await getJson(`${node.url}/obtain?ids_only=T`);
    expect(status).to.equal(200);
    const ids = (body as unknown as Page).documents.map((entry) => entry.doc_ID);
    expect(ids).to.have.length(1000);
    expect(ids[0]).to.equal('doc-01199');
    expect(ids[999]).to.equal('doc-00200');
  });

  it('streams ALL documents as one valid JSON object, with no token', async () => {
    const response = await fetch(`${node.url}/obtain`);
    expect(response.status).to.equal(200);
    const body = JSON.parse(await response.text()) as Page;
    expect(body.documents).to.have.length(1200);
    expect(body).to.not.have.property('resumption_token');
    expect(new Set(body.documents.map((d) => d.doc_ID)).size).to.equal(1200);
  });

  it('spec_kv_only returns only the specification\'s key-value pairs', async () => {
    const { body } = await getJson(`${node.url}/obtain?request_ID=doc-00001&by_doc_ID=T`);
    const doc = (body as unknown as Page).documents[0]?.document?.[0] as Doc;
    expect(doc).to.include.keys('doc_ID', 'resource_data', 'node_timestamp');
    expect(doc).to.not.have.any.keys('X_local_note', 'publishing_node', '_id', '_rev');
  });

  it('a token when flow control is off is a flow control error', async () => {
    const { status, body } = await getJson(`${node.url}/obtain?resumption_token=abc`);
    expect(status).to.equal(500);
    expect(body.error).to.match(/^flow control error: this node does not support flow control/);
  });
});

describe('Basic Obtain ALL limits', () => {
  it('doc_limit without flow control returns the most recent documents; 0 makes ALL invalid', async () => {
    const node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { flow_control: false, doc_limit: 5, id_limit: 0 } } } } });
    try {
      await loadStoredCorpus(node, 30);
      const { body } = await getJson(`${node.url}/obtain`);
      expect((body as unknown as Page).documents.map((d) => d.doc_ID)).to.deep.equal(['doc-00029', 'doc-00028', 'doc-00027', 'doc-00026', 'doc-00025']);
      const ids = await getJson(`${node.url}/obtain?ids_only=T`);
      expect(ids.status).to.equal(500);
      expect(ids.body.error).to.match(/does not serve ALL requests/);
    } finally {
      await node.stop();
    }
  });
});

// Obtain reads harvest's views and keeps the live rows (src/storage/obtain-repository.ts): runs
// of deleted rows longer than a page, at the head and in the middle, must not shorten a page,
// end the list early or show through.
describe('Basic Obtain over runs of deleted documents', () => {
  let node: TestNode;
  let live: string[];
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { doc_limit: 25, id_limit: 30, flow_control: true } } } } });
    const corpus = await loadStoredCorpus(node, 300);
    const db = node.couch.use(node.names.resourceData);
    const stored = (await db.fetch({ keys: corpus.map((doc) => String(doc._id)) })).rows.map((row) => (row as unknown as { doc: Doc }).doc);
    const deleted = (i: number): boolean => (i >= 100 && i < 250) || i >= 285 || i % 7 === 0;
    await db.bulk({ docs: stored.flatMap((doc, i): Doc[] => {
      if (!deleted(i)) return [];
      // The newest are tombstones, the middle run is marked by Basic Delete, the rest deletion documents.
      if (i >= 285) return [{ _id: doc._id, _rev: doc._rev, doc_type: 'tombstone', doc_ID: doc._id, node_timestamp: doc.node_timestamp, replaced_by: { doc_ID: 'x' } }];
      return [i % 7 === 0 ? { ...doc, payload_placement: 'none' } : { ...doc, node_deleted: '2024-01-01T00:00:00.000000Z' }];
    }) as never[] });
    live = corpus.map((doc) => String(doc._id)).filter((_, i) => !deleted(i)).reverse();
  });
  after(async () => node.stop());

  async function pages(query: string, size: number): Promise<string[]> {
    const seen: string[] = [];
    let token: string | null | undefined;
    do {
      const { status, body } = await getJson(`${node.url}/obtain?${query}${token ? `&resumption_token=${encodeURIComponent(token)}` : ''}`);
      expect(status, JSON.stringify(body)).to.equal(200);
      const page = body as unknown as Page;
      token = page.resumption_token;
      // Every page but the last is full, however many deleted rows lie between its documents.
      if (token) expect(page.documents).to.have.length(size);
      seen.push(...page.documents.map((entry) => entry.doc_ID));
    } while (token);
    return seen;
  }

  it('pages hold doc_limit live documents each, every live document once, newest first', async () => {
    expect(live).to.have.length.above(100);
    expect(await pages('', 25)).to.deep.equal(live);
  });

  it('ids_only pages do the same by id_limit', async () => {
    expect(await pages('ids_only=T', 30)).to.deep.equal(live);
  });

  it('/status counts the live documents only', async () => {
    // /status answers from cheap state at once; its count is the live one once it says it is current.
    expect((await currentStatus(node.url)).doc_count).to.equal(live.length);
  });
});

// Spec "Limits": "An implementation MUST state any size limits in the service description", and
// Basic Obtain rule 8: no limit on the number of IDs or message size unless the description
// states one. The 10,000 IDs and the 1 MiB body were applied and stated nowhere (an audit's finding).
describe('Basic Obtain states the limits of a request, and applies the ones it states', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { msg_size_limit: 2000, request_id_limit: 3, id_length_limit: 20 } } } } });
  });
  after(async () => node.stop());

  it('in /services, and each refusal names the key', async () => {
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: Record<string, unknown> }[];
    expect(services.find((s) => s.service_name === 'Basic Obtain')?.service_data).to.include({ msg_size_limit: 2000, request_id_limit: 3, id_length_limit: 20 });
    expect((await postJson(`${node.url}/obtain`, { request_IDs: ['a', 'b', 'a'], by_doc_ID: true })).status).to.equal(200);
    const tooMany = await postJson(`${node.url}/obtain`, { request_IDs: ['a', 'b', 'c', 'a'], by_doc_ID: true });
    expect({ status: tooMany.status, body: tooMany.body }).to.deep.equal({ status: 500, body: { OK: false, error: 'too many request_IDs: 4, the limit is 3 (service_data.request_id_limit)' } });
    const tooLarge = await postJson(`${node.url}/obtain`, { request_IDs: ['a'], by_doc_ID: true, padding: 'x'.repeat(2000) });
    expect({ status: tooLarge.status, body: tooLarge.body }).to.deep.equal({ status: 500, body: { OK: false, error: 'request body too large: the limit is 2000 bytes (service_data.msg_size_limit)' } });
    for (const response of [await postJson(`${node.url}/obtain`, { request_IDs: ['x'.repeat(21)] }), await getJson(`${node.url}/obtain?request_ID=${'x'.repeat(21)}`)]) {
      expect({ status: response.status, body: response.body }).to.deep.equal({ status: 500, body: { OK: false, error: 'a request ID is too long: the limit is 20 characters (service_data.id_length_limit)' } });
    }
  });
});
