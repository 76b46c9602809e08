/** POST /publish through HTTP against a real embedded store (spec "Publish"). */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, currentStatus, settled, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };

async function stored(node: TestNode, id: string): Promise<Doc | undefined> {
  try { return await node.couch.use(node.names.resourceData).get(id) as unknown as Doc; } catch { return undefined; }
}

describe('POST /publish', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { publish: { service_data: { doc_limit: 5, msg_size_limit: 200000 } } } } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  describe('authentication', () => {
    it('401 with WWW-Authenticate and a JSON error without credentials', async () => {
      const { status, body, headers } = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) });
      expect(status).to.equal(401);
      expect(body.OK).to.equal(false);
      expect(headers.get('www-authenticate')).to.match(/^Basic realm=/);
    });

    it('401 with a wrong password or an unknown account', async () => {
      expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth('alice', 'wrong-password') })).status).to.equal(401);
      expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth('mallory', 'alice-password-1') })).status).to.equal(401);
    });
  });

  describe('storing', () => {
    it('stores a batch, returns doc_IDs aligned 1:1, sets publish_node and one identical UTC timestamp', async () => {
      const docs: Doc[] = nsdlDocs(3).map((d, i) => ({ ...d, doc_ID: `nsdl-${i}` }));
      const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
      expect(status).to.equal(200);
      expect(body.OK).to.equal(true);
      const results = body.document_results as { doc_ID: string; OK: boolean; error?: string }[];
      expect(results).to.have.length(3);
      for (const [index, result] of results.entries()) {
        expect(result).to.deep.equal({ doc_ID: docs[index]?.doc_ID, OK: true });
        const doc = await stored(node, result.doc_ID) as Doc;
        expect(doc.publish_node).to.equal(node.bootstrap.nodeId);
        expect(doc.node_timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        expect(doc.create_timestamp).to.equal(doc.node_timestamp);
        expect(doc.update_timestamp).to.equal(doc.node_timestamp);
        expect(doc.resource_data).to.equal(docs[index]?.resource_data);
      }
    });

    it('assigns a unique doc_ID when the document has none', async () => {
      const docs = nsdlDocs(2).map(({ doc_ID: _id, ...rest }) => { void _id; return rest; });
      const { body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
      const results = body.document_results as { doc_ID: string; OK: boolean }[];
      expect(results.every((r) => r.OK)).to.equal(true);
      expect(results[0]?.doc_ID).to.match(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(results[0]?.doc_ID).to.not.equal(results[1]?.doc_ID);
      expect((await stored(node, results[0]?.doc_ID as string))?.doc_ID).to.equal(results[0]?.doc_ID);
    });

    it('the account becomes the submitter of a document that names none', async () => {
      const docs = nsdlDocs(2).map((d, i) => ({ ...d, doc_ID: `unattributed-${i}`, identity: i === 0 ? { submitter_type: 'agent' } : { submitter_type: 'user', curator: 'A library' } }));
      const { body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
      expect((body.document_results as { OK: boolean }[]).map((r) => r.OK)).to.deep.equal([true, true]);
      expect((await stored(node, 'unattributed-0'))?.identity).to.deep.equal({ submitter_type: 'agent', submitter: 'alice' });
      expect((await stored(node, 'unattributed-1'))?.identity).to.deep.equal({ submitter_type: 'user', curator: 'A library', submitter: 'alice' });
    });

    it('an anonymous document stays anonymous: the account is not named against its will', async () => {
      const [doc] = nsdlDocs(1).map((d) => ({ ...d, doc_ID: 'anon-1', identity: { submitter_type: 'anonymous', submitter: 'anonymous' } }));
      const { body } = await postJson(`${node.url}/publish`, { documents: [doc] }, AUTH);
      expect((body.document_results as { OK: boolean }[])[0]?.OK).to.equal(true);
      expect((await stored(node, 'anon-1'))?.identity).to.deep.equal({ submitter_type: 'anonymous', submitter: 'anonymous' });
      // Its owner is still the account: it may delete it.
      const deleted = await postJson(`${node.url}/delete`, { request_IDs: ['anon-1'] }, AUTH);
      expect(deleted.body.document_results).to.deep.equal([{ doc_ID: 'anon-1', OK: true }]);
    });

    it('a bad document fails alone; the rest of the batch is stored, results stay aligned', async () => {
      const docs: unknown[] = nsdlDocs(3).map((d, i) => ({ ...d, doc_ID: `mixed-${i}` }));
      docs[1] = { ...(docs[1] as Doc), doc_type: 'not_resource_data' };
      const { status, body } = await postJson(`${node.url}/publish`, { documents: [...docs, 'not an object'] }, AUTH);
      expect(status).to.equal(200);
      const results = body.document_results as { doc_ID: string | null; OK: boolean; error?: string }[];
      expect(results.map((r) => r.OK)).to.deep.equal([true, false, true, false]);
      expect(results[1]).to.include({ doc_ID: 'mixed-1' });
      expect(results[1]?.error).to.match(/^invalid document: .*doc_type/);
      expect(results[3]).to.deep.equal({ doc_ID: null, OK: false, error: 'invalid document: not a JSON object' });
      expect(await stored(node, 'mixed-1')).to.equal(undefined);
      expect(await stored(node, 'mixed-2')).to.not.equal(undefined);
    });

    it('rejects a doc_ID given twice in one batch for the second occurrence', async () => {
      const [a, b] = nsdlDocs(2).map((d) => ({ ...d, doc_ID: 'twice' }));
      const { body } = await postJson(`${node.url}/publish`, { documents: [a, b] }, AUTH);
      const results = body.document_results as { OK: boolean; error?: string }[];
      expect(results.map((r) => r.OK)).to.deep.equal([true, false]);
      expect(results[1]?.error).to.match(/twice/);
    });
  });

  describe('global errors: OK false, HTTP 500, nothing stored', () => {
    it('a do_not_distribute key anywhere in the batch', async () => {
      const docs: Doc[] = nsdlDocs(2).map((d, i) => ({ ...d, doc_ID: `dnd-${i}` }));
      (docs[1] as Doc).do_not_distribute = 'true';
      const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
      expect(status).to.equal(500);
      expect(body.OK).to.equal(false);
      expect(body.error).to.match(/cannot publish/);
      expect(await stored(node, 'dnd-0')).to.equal(undefined);
    });

    const cases: [string, unknown, RegExp][] = [
      ['missing documents', {}, /missing "documents"/],
      ['empty documents', { documents: [] }, /empty/],
      ['documents not an array', { documents: 'x' }, /missing "documents"/],
      ['a body that is not an object', [1, 2], /JSON object/],
      ['more than doc_limit documents', { documents: nsdlDocs(6) }, /too many documents: 6, the limit is 5/],
      ['invalid JSON', '{"documents": [', /not valid JSON/],
    ];
    for (const [name, body, error] of cases) {
      it(name, async () => {
        const response = await postJson(`${node.url}/publish`, body, AUTH);
        expect(response.status).to.equal(500);
        expect(response.body.OK).to.equal(false);
        expect(String(response.body.error)).to.match(error);
      });
    }

    it('a body over msg_size_limit', async () => {
      const big = { documents: [{ ...nsdlDocs(1)[0], resource_data: 'x'.repeat(250000) }] };
      const response = await postJson(`${node.url}/publish`, big, AUTH);
      expect(response.status).to.equal(500);
      expect(response.body.error).to.match(/too large: the limit is 200000 bytes/);
    });
  });
});

describe('POST /publish by an account on a node that refuses anonymous submissions', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { policy: { accept_anonymous: false } } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  it('anon submission rejected, although an account publishes it (spec "Processing order", step 3)', async () => {
    const docs = nsdlDocs(2).map((d, i) => ({ ...d, doc_ID: `policy-anon-${i}`, identity: i === 0 ? { submitter_type: 'anonymous', submitter: 'anonymous' } : { submitter_type: 'agent' } }));
    const { body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    expect(body.document_results).to.deep.equal([{ doc_ID: 'policy-anon-0', OK: false, error: 'anon submission rejected' }, { doc_ID: 'policy-anon-1', OK: true }]);
    expect(await stored(node, 'policy-anon-0')).to.equal(undefined);
    expect((await stored(node, 'policy-anon-1'))?.identity).to.deep.equal({ submitter_type: 'agent', submitter: 'alice' });
  });
});

describe('POST /publish under a strict node policy', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: {
      policy: { accept_anonymous: false, accept_unsigned: false, check_trusted_submitters: true, trusted_submitters: ['Trusted Org'], accepted_tos: ['http://nsdl.org/help/?pager=termsofuse'], max_document_size: 4096, proxy_sign: false },
      filter: { include_exclude: true, filter: [{ filter_key: 'keys', filter_value: '^Algebra$' }] },
      services: { publish: { service_auth: { service_authz: ['none'] } } },
    } });
  });
  after(async () => node.stop());

  async function errorFor(doc: Doc): Promise<string | undefined> {
    const { status, body } = await postJson(`${node.url}/publish`, { documents: [doc] });
    expect(status).to.equal(200);
    return (body.document_results as { error?: string }[])[0]?.error;
  }

  // A document that passes every check but the one under test (the checks run in the spec's order).
  const base = (): Doc => ({ ...nsdlDocs(1)[0], identity: { submitter: 'Trusted Org', submitter_type: 'agent' }, keys: ['Algebra'], resource_data: '<x/>', digital_signature: { signature: 'x', key_location: ['http://example.org/k'], signing_method: 'LR-PGP.1.0' } });

  it('accepts no credentials when service_authz is none', async () => {
    expect(await errorFor(base())).to.equal(undefined);
  });
  it('rejected by filter', async () => { expect(await errorFor({ ...base(), keys: ['Biology'] })).to.equal('rejected by filter'); });
  it('rejected by ToS', async () => { expect(await errorFor({ ...base(), TOS: { submission_TOS: 'http://example.org/other-terms' } })).to.equal('rejected by ToS'); });
  it('anon submission rejected', async () => { expect(await errorFor({ ...base(), identity: { submitter: 'anonymous', submitter_type: 'anonymous' } })).to.equal('anon submission rejected'); });
  it('rejected submitter', async () => { expect(await errorFor({ ...base(), identity: { submitter: 'Somebody Else', submitter_type: 'agent' } })).to.equal('rejected submitter'); });
  it('no signature', async () => {
    const { digital_signature: _s, ...unsigned } = base();
    void _s;
    expect(await errorFor(unsigned)).to.equal('no signature');
  });
  it('too large', async () => { expect(await errorFor({ ...base(), resource_data: `<x>${'y'.repeat(5000)}</x>` })).to.equal('too large'); });

  it('states the document size limit it enforces in the publishing services\' descriptions (spec "Limits")', async () => {
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data?: Record<string, unknown> }[];
    for (const name of ['Basic Publish', 'SWORD APP Publish V1.3']) {
      expect(services.find((s) => s.service_name === name)?.service_data, name).to.include({ max_document_size: 4096 });
    }
  });
  it('an earlier check wins over a later one (filter before ToS)', async () => {
    expect(await errorFor({ ...base(), keys: ['Biology'], TOS: { submission_TOS: 'http://example.org/other-terms' } })).to.equal('rejected by filter');
  });
  it('the filter is read at each call: a changed filter applies without a restart', async () => {
    const db = node.couch.use(node.names.node);
    const filter = await db.get('filter_description') as unknown as Doc & { _rev: string };
    await db.insert({ ...filter, include_exclude: false } as never);
    await settled(node);
    expect(await errorFor(base())).to.equal('rejected by filter');
    expect(await errorFor({ ...base(), keys: ['Biology'], doc_ID: 'bio-1' })).to.equal(undefined);
  });
  // The filter function takes a pattern it cannot compile for one that matches nothing: every
  // document was "rejected by filter" and nothing was logged. CONFIG refuses such a pattern; one
  // edited into the node database fails the publish naming it, and is logged as an error.
  it('a filter pattern edited in the node database that cannot compile fails the publish naming it', async () => {
    const db = node.couch.use(node.names.node);
    const filter = await db.get('filter_description') as unknown as Doc & { _rev: string };
    const written = await db.insert({ ...filter, filter: [{ filter_key: 'keys', filter_value: '^Algebra$' }, { filter_key: 'keys', filter_value: '(' }] } as never);
    await settled(node);
    try {
      const logged = node.logs.length;
      const { status, body } = await postJson(`${node.url}/publish`, { documents: [{ ...base(), doc_ID: 'bad-filter-1' }, { ...base(), keys: ['Biology'], doc_ID: 'bad-filter-2' }] });
      const error = 'the node filter description (filter_description) cannot be applied: filter[1].filter_value "(" is not a regular expression the filter can compile (Invalid regular expression: /(/: Unterminated group)';
      expect({ status, body }).to.deep.equal({ status: 500, body: { OK: false, error } });
      const errors = node.logs.slice(logged).map((line) => JSON.parse(line) as { level: number; err?: { message?: string } }).filter((entry) => entry.level === 50);
      expect(errors.map((entry) => entry.err?.message)).to.deep.equal([error]);
      expect(await stored(node, 'bad-filter-1')).to.equal(undefined);
    } finally {
      await db.insert({ ...filter, _rev: written.rev } as never);
      await settled(node);
    }
    expect(await errorFor({ ...base(), doc_ID: 'bad-filter-1' })).to.equal('rejected by filter');
  });
  // The node policy edited by hand in the node database was applied as it came: without
  // `accepted_tos` every publish failed with a bare "internal error" (a TypeError), and a
  // `max_document_size` that was no number applied no size limit at all.
  it('a node policy edited in the node database: a member left out takes its default, a wrong one fails the publish naming it', async () => {
    const db = node.couch.use(node.names.node);
    const description = await db.get('node_description') as unknown as Doc & { _rev: string; node_policy: Record<string, unknown> };
    const withoutTos = { ...description.node_policy };
    delete withoutTos.accepted_tos;
    let written = await db.insert({ ...description, node_policy: withoutTos } as never);
    try {
      await settled(node);
      expect(await errorFor({ ...base(), keys: ['Biology'], doc_ID: 'policy-1' })).to.equal(undefined);
      written = await db.insert({ ...description, _rev: written.rev, node_policy: { ...description.node_policy, max_document_size: 'large' } } as never);
      await settled(node);
      const { status, body } = await postJson(`${node.url}/publish`, { documents: [{ ...base(), keys: ['Biology'], doc_ID: 'policy-2' }] });
      expect({ status, body }).to.deep.equal({ status: 500, body: { OK: false, error: 'the node policy (node_policy of the node description) cannot be applied: node_policy/max_document_size must be integer, got "large"' } });
      expect(await stored(node, 'policy-2')).to.equal(undefined);
    } finally {
      await db.insert({ ...description, _rev: written.rev } as never);
      await settled(node);
    }
    expect(await errorFor({ ...base(), keys: ['Biology'], doc_ID: 'policy-2' })).to.equal(undefined);
  });
  it('GET /status reflects the stored count', async () => {
    expect((await currentStatus(node.url)).doc_count).to.equal(4);
  });
});

describe('POST /publish, a large batch (written in slices while the next slice is checked)', function () {
  this.timeout(60000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  it('answers each of 400 documents in order, across slices: bad ones, a doc_ID twice, updates of stored ones', async () => {
    const corpus = nsdlDocs(100);
    const docOf = (i: number, docId: string): Doc => ({ ...(corpus[i % corpus.length] as Doc), doc_ID: docId });
    const existing = [docOf(0, 'large-existing-1'), docOf(1, 'large-existing-2')];
    expect((await postJson(`${node.url}/publish`, { documents: existing }, AUTH)).body.OK).to.equal(true);
    const before = await stored(node, 'large-existing-1') as Doc;

    const docs: unknown[] = Array.from({ length: 400 }, (_, i) => docOf(i, `large-${i}`));
    docs[7] = { ...(docs[7] as Doc), doc_type: 'not_resource_data' };
    docs[120] = docOf(120, 'large-twice');
    docs[330] = docOf(330, 'large-twice');
    docs[260] = { ...docOf(5, 'large-existing-1'), resource_data: '<changed/>', payload_schema: ['oai_dc'] };
    docs[399] = docOf(6, 'large-existing-2');
    docs[200] = 'not an object';
    const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, AUTH);
    expect(status).to.equal(200);
    const results = body.document_results as { doc_ID: string | null; OK: boolean; error?: string }[];
    expect(results).to.have.length(400);
    const failed = results.flatMap((result, index) => (result.OK ? [] : [index]));
    expect(failed).to.deep.equal([7, 200, 330]);
    expect(results[7]?.error).to.match(/^invalid document: .*doc_type/);
    expect(results[200]).to.deep.equal({ doc_ID: null, OK: false, error: 'invalid document: not a JSON object' });
    expect(results[330]).to.deep.equal({ doc_ID: 'large-twice', OK: false, error: 'rejected: doc_ID appears twice in the batch (send the later version in a request of its own)' });
    for (const [index, result] of results.entries()) {
      if (![7, 200, 330].includes(index)) expect(result.doc_ID, `result ${index}`).to.equal((docs[index] as Doc).doc_ID);
    }

    // One identical node_timestamp for the whole batch, whichever slice stored a document; the
    // updates too (an update reported OK but never written, as happened when the embedded store
    // answered _bulk_docs out of order, keeps its first timestamp: bulk-docs-order.test.ts).
    const stamps = new Set<unknown>();
    for (const id of ['large-0', 'large-150', 'large-299', 'large-398', 'large-twice', 'large-existing-2']) stamps.add((await stored(node, id))?.node_timestamp);
    expect(stamps.size, JSON.stringify([...stamps])).to.equal(1);
    expect(await stored(node, 'large-7')).to.equal(undefined);
    // The owner's same-doc_ID update, met as a conflict of the slice's optimistic write.
    const updated = await stored(node, 'large-existing-1') as Doc;
    expect(updated.resource_data).to.equal('<changed/>');
    expect(updated.create_timestamp).to.equal(before.create_timestamp);
    expect(updated.node_timestamp).to.equal([...stamps][0]);
    await settled(node);
    expect((await currentStatus(node.url)).doc_count).to.equal(2 + 400 - 3 - 2);
  });
});
