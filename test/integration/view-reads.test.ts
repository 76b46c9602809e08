/**
 * View reads (issue 14, defects 3 and 9): long keys travel in a POST body, never in the store's
 * URL, and argument lengths are capped with a 400 naming the limit; a read whose index is still
 * being built waits at most VIEW_WAIT_MS, then answers 503 with Retry-After in the protocol's own
 * error form, and the index goes on building so a retry succeeds.
 */
import { expect } from 'chai';
import { startTestNode, getJson, type TestNode } from '../support/node.js';
import type { Doc } from '../support/documents.js';

function rawDoc(i: number, keys: string[] = ['common']): Doc {
  const ts = `2024-05-01T12:00:00.${String(i).padStart(6, '0')}Z`;
  return {
    _id: `view-${i}`, doc_ID: `view-${i}`, doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true,
    TOS: { submission_TOS: 'http://www.learningregistry.org/tos/cc0/v0-5/' }, payload_placement: 'inline',
    payload_schema: ['nsdl_dc'], resource_locator: `http://example.org/v/${i}`, resource_data: `<r>${i}</r>`,
    identity: { submitter: 'alice', submitter_type: 'agent' }, keys, create_timestamp: ts, update_timestamp: ts, node_timestamp: ts,
  };
}

async function writeRaw(node: TestNode, docs: Doc[]): Promise<void> {
  const db = node.couch.use(node.names.resourceData);
  for (let i = 0; i < docs.length; i += 500) await db.bulk({ docs: docs.slice(i, i + 500) });
}

describe('view reads: long keys', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await writeRaw(node, [rawDoc(1, ['x'.repeat(900)]), rawDoc(2)]);
  });
  after(async () => node.stop());

  it('a 10,000-character tag is a 400 naming the limit, not a store error', async () => {
    const { status, body } = await getJson(`${node.url}/slice?any_tags=${'a'.repeat(10000)}`);
    expect(status).to.equal(400);
    expect(body.OK).to.equal(false);
    expect(String(body.error)).to.match(/too long: 10000 characters, the limit is 1000/);
  });

  it('a 900-character tag is read (by POST: the key never enters the store URL)', async () => {
    const { status, body } = await getJson(`${node.url}/slice?any_tags=${'x'.repeat(900)}`);
    expect(status).to.equal(200);
    expect((body.documents as unknown[]).length).to.equal(1);
  });

  it('an overlong identity or resumption token is a 400 naming the limit', async () => {
    expect((await getJson(`${node.url}/slice?identity=${'b'.repeat(1001)}`)).body.error).to.match(/identity is too long/);
    expect((await getJson(`${node.url}/slice?resumption_token=${'c'.repeat(5000)}`)).body.error).to.match(/resumption_token is too long.*limit is 4096/);
  });
});

describe('view reads: bounded wait', function () {
  // `eventually` retries for up to 120 s: a loaded machine (CI) can take longer than mocha's
  // default 60 s to build the index, and that is a slow build, not a failure of the bounded wait.
  this.timeout(150000);
  let node: TestNode;
  before(async () => {
    // Without the index warmer: each test needs an index nobody has built yet (the warmer has
    // its own test, index-warming.test.ts).
    node = await startTestNode({ env: { VIEW_WAIT_MS: '100', INDEX_WARMING: 'off' } });
    await writeRaw(node, Array.from({ length: 3000 }, (_, i) => rawDoc(i)));
  });
  after(async () => node.stop());

  async function eventually(url: string): Promise<number> {
    const deadline = Date.now() + 120000;
    for (;;) {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== 503 || Date.now() > deadline) return response.status;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  it('JSON services: 503 with Retry-After and {"OK": false} while the index builds, 200 once built', async () => {
    const started = Date.now();
    const { status, body, headers } = await getJson(`${node.url}/obtain`);
    expect(Date.now() - started).to.be.below(5000);
    expect(status).to.equal(503);
    expect(body.OK).to.equal(false);
    expect(String(body.error)).to.match(/still being built/);
    expect(Number(headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await eventually(`${node.url}/obtain`)).to.equal(200);
  });

  it('OAI-PMH: 503 with Retry-After while the index builds, a well-formed answer once built', async () => {
    const response = await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`);
    await response.arrayBuffer();
    expect(response.status).to.equal(503);
    expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await eventually(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`)).to.equal(200);
  });
});
