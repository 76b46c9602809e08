/**
 * READ_AHEAD (src/storage/read-ahead.ts): the next page of a list a harvester follows by its
 * tokens (JSON and OAI-PMH harvests, Basic Obtain's ALL) is read while the node sends the page
 * before, and the next request takes it. Every list
 * stays exact: each document once, in order, and a document deleted after its page was read ahead
 * is not served from that page (the changes since the read are placed in it, as during writes).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { scrape } from '../support/prometheus.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const PUBLISHED = 20;
const limits = { doc_limit: 3, id_limit: 3 };
const TOKEN = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/;

describe('harvest pages read ahead', function () {
  this.timeout(120000);
  let node: TestNode;
  let published: string[];
  before(async () => {
    node = await startTestNode({
      env: { MONITORING_PORT: '0' },
      nodeConfig: { services: { harvest: { service_data: limits }, oai_pmh: { service_data: limits }, obtain: { service_data: limits } } },
    });
    await addAccount(node, 'alice', 'alice-password-1');
    published = Array.from({ length: PUBLISHED }, (_, i) => `ra-${String(i).padStart(2, '0')}`);
    const documents = nsdlDocs(PUBLISHED).map((doc, i) => ({ ...doc, doc_ID: published[i], identity: { submitter: 'alice', submitter_type: 'agent' } }));
    const { body } = await postJson(`${node.url}/publish`, { documents }, AUTH);
    expect((body.document_results as { OK: boolean }[]).filter((result) => result.OK)).to.have.length(PUBLISHED);
  });
  after(async () => node?.stop());

  const pagesOf = async (outcome: string): Promise<number> => (await scrape(`${node.monitoringUrl}/metrics`)).value('lr_read_ahead_pages_total', { outcome });

  /** A JSON listrecords page's identifiers and token. */
  async function jsonPage(token: string | undefined): Promise<{ ids: string[]; token: string | undefined }> {
    const { body } = await getJson(`${node.url}/harvest/listrecords${token ? `?resumption_token=${encodeURIComponent(token)}` : ''}`);
    expect(body.OK, JSON.stringify(body).slice(0, 300)).to.equal(true);
    const ids = (body.listrecords as { record: { header: { identifier: string } } }[]).map((item) => item.record.header.identifier);
    return { ids, token: typeof body.resumption_token === 'string' ? body.resumption_token : undefined };
  }

  /** An OAI-PMH ListRecords page's identifiers (the doc_IDs of its records) and token. */
  async function oaiPage(token: string | undefined): Promise<{ ids: string[]; token: string | undefined }> {
    const query = token ? `resumptionToken=${encodeURIComponent(token)}` : 'metadataPrefix=oai_dc';
    const xml = await (await fetch(`${node.url}/OAI-PMH?verb=ListRecords&${query}`)).text();
    expect(xml, xml.slice(0, 300)).to.not.include('<error');
    const ids = [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((match) => match[1] as string);
    return { ids, token: TOKEN.exec(xml)?.[1] };
  }

  /** A Basic Obtain ALL page's doc_IDs (newest first) and token. */
  async function obtainPage(token: string | undefined): Promise<{ ids: string[]; token: string | undefined }> {
    const { body } = await getJson(`${node.url}/obtain${token ? `?resumption_token=${encodeURIComponent(token)}` : ''}`);
    const ids = (body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID);
    return { ids, token: typeof body.resumption_token === 'string' ? body.resumption_token : undefined };
  }

  type Pager = (token: string | undefined) => Promise<{ ids: string[]; token: string | undefined }>;

  /** Follows a list to its end; `between(n, ids)` runs after page n (1-based) with the ids so far. */
  async function follow(pager: Pager, between: (page: number, ids: string[]) => Promise<void> = async () => undefined): Promise<string[]> {
    const ids: string[] = [];
    let token: string | undefined;
    for (let page = 1; page <= 20; page += 1) {
      const answer = await pager(token);
      ids.push(...answer.ids);
      if (!answer.token) return ids;
      token = answer.token;
      await between(page, ids);
    }
    throw new Error('the list did not end');
  }

  const removed: string[] = [];
  let startedBefore = 0;
  beforeEach(async () => { startedBefore = await pagesOf('started'); });

  for (const [name, pager] of [['Basic Harvest listrecords', jsonPage], ['OAI-PMH ListRecords', oaiPage], ['Basic Obtain ALL', obtainPage]] as const) {
    it(`${name}: the pages after the second are read ahead and taken; every document once, in order`, async () => {
      const taken = await pagesOf('taken');
      expect(await follow(pager)).to.deep.equal(pager === obtainPage ? [...published].reverse() : published);
      // Seven pages of three (OAI-PMH: six, its last holding two more): each from the third on was read ahead.
      expect(await pagesOf('taken') - taken).to.be.at.least(4);
    });
  }

  for (const [name, pager] of [['Basic Harvest listrecords', jsonPage], ['OAI-PMH ListRecords', oaiPage]] as const) {
    it(`${name}: a document deleted after its page was read ahead is not served from it`, async () => {
      const deleted: string[] = [];
      const deletedBefore = [...removed];
      const ids = await follow(pager, async (page, sofar) => {
        if (page !== 2) return;
        // The third page, read ahead while the second was sent, starts with the next live document.
        const next = published.find((id) => !sofar.includes(id) && !removed.includes(id)) as string;
        expect(await pagesOf('started')).to.be.above(startedBefore);
        await new Promise((resolve) => setTimeout(resolve, 300)); // the read ahead has ended
        const { body } = await postJson(`${node.url}/delete`, { request_IDs: [next] }, AUTH);
        expect((body.document_results as Doc[])[0], JSON.stringify(body)).to.include({ OK: true });
        deleted.push(next);
      });
      removed.push(...deleted);
      expect(deleted).to.have.length(1);
      expect(removed).to.have.length(name.startsWith('OAI') ? 2 : 1);
      // Deleting re-stamps the document past the list's end: the list goes on without it (those
      // deleted before the list began come last, as deleted records).
      expect(ids).to.deep.equal([...published.filter((id) => !removed.includes(id)), ...deletedBefore]);
    });
  }
});
