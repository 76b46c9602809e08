/**
 * What a request costs in store round trips (issue 19): the node and service descriptions, the
 * filter and the accounts are followed through their databases' _changes feeds
 * (src/storage/followed-documents.ts), so once the node has read them a publish batch is one
 * `_bulk_docs` and a harvest page one view read. A counting proxy sits between the node and its
 * store. A change written straight to the store still applies without a restart, as soon as the
 * feed reports it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { addAccount, basicAuth, postJson, getJson, settled, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { startProxiedNode, type ProxiedNode, type StoreProxy } from '../support/store-proxy.js';

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

  it('a disabled account is refused as soon as the feed reports it', async () => {
    const { AccountRepository } = await import('../../src/storage/account-repository.js');
    const accounts = new AccountRepository(node.couch, node.names);
    const account = await accounts.find('counted');
    await accounts.update({ ...account!, disabled: true });
    await settled(node);
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: AUTH })).status).to.equal(401);
  });
});
