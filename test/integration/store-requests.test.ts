/**
 * What a request costs in store round trips (issue 19): the node and service descriptions, the
 * filter and the accounts are followed through their databases' _changes feeds
 * (src/storage/followed-documents.ts), so once the node has read them a publish batch is one
 * `_bulk_docs` and a harvest page one view read; a replicated batch of new documents at
 * /incoming is one `_bulk_docs` too (issue 15). A counting proxy sits between the node and its
 * store. A change written straight to the store still applies without a restart, as soon as the
 * feed reports it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { addAccount, basicAuth, postJson, getJson, settled, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startProxiedNode, type ProxiedNode, type StoreProxy } from '../support/store-proxy.js';
import { MAX_MISSES, type FollowedDocuments } from '../../src/storage/followed-documents.js';

const AUTH = basicAuth('counted', 'counted-password-1');

describe('store round trips per request', function () {
  this.timeout(120000);
  let proxied: ProxiedNode;
  let proxy: StoreProxy;
  let node: TestNode;

  before(async () => {
    proxied = await startProxiedNode({ INDEX_WARMING: 'off' });
    ({ proxy, node } = proxied);
    await addAccount(node, 'counted', 'counted-password-1');
  });
  after(async () => proxied?.stop());

  it('a publish batch is one _bulk_docs once the node has read its documents', async () => {
    const docs = nsdlDocs(30);
    expect((await postJson(`${node.url}/publish`, { documents: docs.slice(0, 10) }, { authorization: AUTH })).body.OK).to.equal(true);
    proxy.seen.length = 0;
    const answer = await postJson(`${node.url}/publish`, { documents: docs.slice(10, 30) }, { authorization: AUTH });
    expect(answer.body.OK, JSON.stringify(answer.body).slice(0, 300)).to.equal(true);
    expect(proxy.seen.filter((line) => !line.includes('/_design/')), proxy.seen.join('\n')).to.deep.equal([`POST /${node.names.resourceData}/_bulk_docs`]);
  });

  it('a replicated batch of new documents is one _bulk_docs at /incoming; a doc_ID stored already is read then and decided (a duplicate is not written again, an unsigned update from elsewhere is refused)', async () => {
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
    const admin = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };
    const at = '2020-01-01T00:00:00.000000Z';
    const arriving = (doc: Doc, id: string): Doc => ({
      ...doc, _id: id, _rev: '1-0123456789abcdef0123456789abcdef', doc_ID: id, identity: { submitter: 'elsewhere', submitter_type: 'agent' },
      publish_node: 'elsewhere', publishing_node: 'elsewhere', create_timestamp: at, update_timestamp: at, node_timestamp: at,
    });
    const replicate = async (docs: Doc[]): Promise<number> => (await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: admin, body: JSON.stringify({ docs, new_edits: false }) })).status;
    const storeRequests = (): string[] => proxy.seen.filter((line) => line.includes(`/${node.names.resourceData}/`) && !line.includes('/_design/'));
    const docs = nsdlDocs(60).slice(30);
    const first = docs.slice(0, 10).map((doc, k) => arriving(doc, `replicated-${k}`));
    proxy.seen.length = 0;
    expect(await replicate(first)).to.equal(201);
    expect(storeRequests(), proxy.seen.join('\n')).to.deep.equal([`POST /${node.names.resourceData}/_bulk_docs`]);
    const resources = node.couch.use(node.names.resourceData);
    const before = await resources.get('replicated-0') as unknown as Doc;
    // The same document again, an update of another with other content, and ten new ones.
    const changed = { ...first[1] as Doc, keys: ['changed elsewhere'] };
    const second = [first[0] as Doc, changed, ...docs.slice(10, 20).map((doc, k) => arriving(doc, `replicated-${10 + k}`))];
    proxy.seen.length = 0;
    expect(await replicate(second)).to.equal(201);
    expect(storeRequests(), proxy.seen.join('\n')).to.deep.equal([
      `POST /${node.names.resourceData}/_bulk_docs`, `POST /${node.names.resourceData}/_all_docs`,
    ]);
    const after = await resources.get('replicated-0') as unknown as Doc;
    expect(after._rev, 'a duplicate is not written again').to.equal(before._rev);
    expect(after.node_timestamp).to.equal(before.node_timestamp);
    expect((await resources.get('replicated-1') as unknown as Doc).keys, 'the refused update leaves the stored document').to.deep.equal(first[1]?.keys);
    for (let k = 10; k < 20; k += 1) expect((await resources.get(`replicated-${k}`) as unknown as Doc).doc_ID).to.equal(`replicated-${k}`);
  });

  it('a replicated batch of 240 is written in four slices, each while the next is checked; a doc_ID stored already in a later slice is still decided', async () => {
    const admin = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };
    const at = '2020-01-01T00:00:00.000000Z';
    const template = nsdlDocs(1)[0] as Doc;
    const arriving = (id: string): Doc => ({
      ...template, _id: id, _rev: '1-0123456789abcdef0123456789abcdef', doc_ID: id, identity: { submitter: 'elsewhere', submitter_type: 'agent' },
      publish_node: 'elsewhere', publishing_node: 'elsewhere', create_timestamp: at, update_timestamp: at, node_timestamp: at,
    });
    const resources = node.couch.use(node.names.resourceData);
    const before = await resources.get('replicated-0') as unknown as Doc;
    // replicated-0 (stored by the test above) sits in the last slice.
    const docs = [...Array.from({ length: 239 }, (_, k) => arriving(`sliced-${k}`)), { ...before, _rev: '1-0123456789abcdef0123456789abcdef' }];
    proxy.seen.length = 0;
    const answer = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: admin, body: JSON.stringify({ docs, new_edits: false }) });
    expect(answer.status).to.equal(201);
    const writes = proxy.seen.filter((line) => line === `POST /${node.names.resourceData}/_bulk_docs`);
    expect(writes.length, proxy.seen.join('\n')).to.equal(4);
    const stored = await resources.fetch({ keys: docs.map((doc) => String(doc._id)) });
    expect(stored.rows.filter((row) => 'doc' in row && row.doc).length).to.equal(240);
    expect((await resources.get('replicated-0') as unknown as Doc)._rev, 'the duplicate is not written again').to.equal(before._rev);
  });

  it('a JSON harvest page and an OAI-PMH page are one view read each', async () => {
    await getJson(`${node.url}/harvest/listrecords`);
    proxy.seen.length = 0;
    expect((await getJson(`${node.url}/harvest/listrecords`)).status).to.equal(200);
    expect(proxy.seen, proxy.seen.join('\n')).to.deep.equal([`POST /${node.names.resourceData}/_design/harvest/_view/by_node_timestamp`]);
    await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`);
    proxy.seen.length = 0;
    expect((await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`)).status).to.equal(200);
    expect(proxy.seen, proxy.seen.join('\n')).to.deep.equal([`POST /${node.names.resourceData}/_design/oai-pmh/_view/by_schema`]);
  });

  it('a forged obtain token drives no store read (the cursor and size it names are read only from a token this node signed)', async () => {
    const forged = `${Buffer.from(JSON.stringify({ s: 'obtain:all', q: 'x', k: ['9999-12-31T00:00:00.000000Z', 'zzz'], n: 0, x: { top: ['9999-12-31T00:00:00.000000Z', 'zzz'], size: 10000 }, t: Date.now() })).toString('base64url')}.AAAA`;
    await getJson(`${node.url}/obtain`);
    proxy.seen.length = 0;
    const answer = await getJson(`${node.url}/obtain?resumption_token=${forged}`);
    expect(answer.body.OK).to.equal(false);
    expect(answer.body.error).to.match(/flow control error/);
    await delay(500); // a read started early would reach the store after the answer
    expect(proxy.seen.filter((line) => line.includes(`/${node.names.resourceData}/`)), proxy.seen.join('\n')).to.deep.equal([]);
  });

  it('obtain answers a repeated doc_ID at each of its places and reads it from the store once, across lookup batches', async () => {
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(63).slice(60) }, { authorization: AUTH });
    const [a, b, c] = (published.body.document_results as { doc_ID: string }[]).map((result) => result.doc_ID) as [string, string, string];
    // 120 IDs, three batches of 50: a and b alternate throughout, c comes only last.
    const ids = [...Array.from({ length: 119 }, (_, i) => (i % 2 === 0 ? a : b)), c];
    proxy.seen.length = 0;
    const answer = await postJson(`${node.url}/obtain`, { request_IDs: ids, by_doc_ID: true });
    const documents = answer.body.documents as { doc_ID: string; document: Doc[] | null }[];
    expect(documents.map((entry) => [entry.doc_ID, entry.document?.[0]?.doc_ID])).to.deep.equal(ids.map((id) => [id, id]));
    const reads = proxy.seen.filter((line) => line.includes(`/${node.names.resourceData}/`) && !line.includes('/_design/'));
    expect(reads, proxy.seen.join('\n')).to.deep.equal([`POST /${node.names.resourceData}/_all_docs`, `GET /${node.names.resourceData}/${c}`]);
  });

  it('a service description changed straight in the store applies as soon as the feed reports it', async () => {
    const db = node.couch.use(node.names.node);
    const id = 'service_description:Basic Harvest';
    const doc = await db.get(id).catch(async () => {
      const all = await db.list({ include_docs: true });
      return all.rows.map((row) => row.doc as unknown as Record<string, unknown>).find((d) => d.service_name === 'Basic Harvest');
    }) as unknown as Record<string, unknown> & { service_data: Record<string, unknown> };
    const pageOf = async (): Promise<number> => ((await getJson(`${node.url}/harvest/listrecords`)).body.listrecords as unknown[]).length;
    expect(await pageOf()).to.be.above(5);
    const started = Date.now();
    await db.insert({ ...doc, service_data: { ...doc.service_data, doc_limit: 5 } } as never);
    let size = await pageOf();
    while (size !== 5 && Date.now() - started < 5000) { await delay(5); size = await pageOf(); }
    expect(size).to.equal(5);
    console.log(`      change seen by the node after ${Date.now() - started} ms`);
    expect(Date.now() - started).to.be.below(1000);
    await settled(node);
  });

  it(`names without an account are kept as missing ${MAX_MISSES} at most: random Basic user names do not grow the memory`, async () => {
    const accounts = node.deps.followed.find((feed) => feed.db === node.names.accounts) as FollowedDocuments;
    await accounts.startedFollowing;
    for (let i = 0; i < MAX_MISSES + 300; i += 1) await accounts.get(`nobody-${i}`);
    expect(accounts.kept).to.be.at.most(MAX_MISSES + 10);
  });

  it('the feeds carry ids, not documents: a large record rewritten 20 times is not sent to the node each time', async () => {
    const db = node.couch.use(node.names.accounts);
    await settled(node);
    const before = proxy.changesBytes.get(node.names.accounts) ?? 0;
    let rev: string | undefined;
    for (let i = 0; i < 20; i += 1) {
      rev = (await db.insert({ _id: 'churning-record', ...(rev ? { _rev: rev } : {}), filler: 'x'.repeat(100_000), i } as never)).rev;
      await delay(20);
    }
    await settled(node);
    expect((proxy.changesBytes.get(node.names.accounts) ?? 0) - before).to.be.below(100_000);
    await db.destroy('churning-record', rev as string);
  });

  it('a disabled account is refused as soon as the feed reports it', async () => {
    const { AccountRepository } = await import('../../src/storage/account-repository.js');
    const accounts = new AccountRepository(node.couch, node.names);
    const account = await accounts.find('counted');
    await accounts.update({ ...account!, disabled: true });
    await settled(node);
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: AUTH })).status).to.equal(401);
  });
});
