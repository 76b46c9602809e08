/**
 * Range reads while documents are being written (issue 14; src/storage/current-reads.ts). While
 * the database is written to, a page is read from the index as it stands and kept only when the
 * changes the index has not seen cannot touch it; otherwise it is read again up to date. Both
 * halves are checked through the server: a document acknowledged just before a request is in its
 * answer on every service (the page that covers it must not come from the index behind it), and
 * a page of older documents is answered from the index (counted in /metrics by how it was answered).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { scrape } from '../support/prometheus.js';

const PUBLISHER = basicAuth('writer', 'writer-password-1');
const ADMIN = { authorization: basicAuth('watcher', 'watcher-password-1') };
const COUNTER = 'lr_range_reads_during_writes_total';
const HARVEST = { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 10, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }] };

type Json = Record<string, unknown>;

async function publish(node: TestNode, docs: Doc[]): Promise<string[]> {
  const answer = await postJson(`${node.url}/publish`, { documents: docs }, { authorization: PUBLISHER });
  expect(answer.body.OK, JSON.stringify(answer.body).slice(0, 300)).to.equal(true);
  return (answer.body.document_results as Json[]).map((result) => result.doc_ID as string);
}

/** A second before now, at the harvest granularity: a `from` that takes in what is published next. */
const secondBefore = (): string => new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');

async function answers(node: TestNode): Promise<{ index: number; updated: number }> {
  const scraped = await scrape(`${node.url}/metrics`, ADMIN);
  return { index: scraped.value(COUNTER, { answer: 'index' }), updated: scraped.value(COUNTER, { answer: 'updated' }) };
}

describe('range reads while documents are being written', function () {
  this.timeout(180000);
  let node: TestNode;
  let older: string[];

  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { harvest: { service_data: HARVEST } } } });
    await addAccount(node, 'writer', 'writer-password-1');
    await addAccount(node, 'watcher', 'watcher-password-1', 'network_admin');
    older = await publish(node, nsdlDocs(40));
    // Every view built and the warmer's pass done: the writes below are the only backlog.
    const deadline = Date.now() + 90000;
    while (!(await getJson(`${node.url}/status`)).body.views_current && Date.now() < deadline) await delay(250);
  });
  after(async () => node.stop());

  it('has every document acknowledged before the request, on every service, and answers older pages from the index', async () => {
    const fresh = nsdlDocs(100).slice(40, 52);
    // The first write; the warmer's next poll (every 250 ms) sees the database moving.
    await publish(node, fresh.slice(0, 1));
    await delay(400);
    const before = await answers(node);
    const firstTen = (await getJson(`${node.url}/harvest/listidentifiers`)).body;
    for (const doc of fresh.slice(1)) {
      const from = secondBefore();
      const [id] = await publish(node, [doc]);
      // Pages that cover the new document, each the first request after its write.
      const harvested = (await getJson(`${node.url}/harvest/listidentifiers?from=${from}`)).body;
      expect((harvested.listidentifiers as Json[]).map((item) => (item.header as Json).identifier), 'JSON harvest').to.include(id);
      const oai = await (await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc&from=${from}`)).text();
      expect(oai, 'OAI-PMH ListIdentifiers').to.include(`<identifier>${id}</identifier>`);
      const newest = (await getJson(`${node.url}/obtain?ids_only=T`)).body;
      expect((newest.documents as Json[]).map((entry) => entry.doc_ID), 'obtain, newest first').to.include(id);
      // The oldest documents, while the newest is perhaps not yet indexed: the same page every time.
      expect((await getJson(`${node.url}/harvest/listidentifiers`)).body.listidentifiers).to.deep.equal(firstTen.listidentifiers);
      await delay(100);
    }
    const after = await answers(node);
    // The pages that covered a new document found it in the backlog and were read again up to
    // date (unless the store had indexed it already); the pages of older documents stood.
    expect(after.updated - before.updated, 'pages read again up to date').to.be.at.least(1);
    expect(after.index - before.index, 'pages answered from the index as it stood').to.be.at.least(fresh.length - 1);
    expect(older).to.have.length(40);
  });
});
