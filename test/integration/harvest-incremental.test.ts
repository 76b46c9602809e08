/**
 * An incremental harvester asks `from` the previous response's responseDate (OAI-PMH harvesting
 * guidelines). A list without `until` holds what was stored when the request arrived, so its
 * responseDate must not be later than that instant: a document stored while a slow list was being
 * answered, in the second before a later responseDate, was in neither that list nor the next.
 * The list here is slow because its index has a backlog to build (warming off). A list's
 * responseDate trails its pin by LIST_RESPONSE_LAG_MS, for documents stamped before the pin and
 * stored after it (a publish batch is stamped when it starts).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { LIST_RESPONSE_LAG_MS } from '../../src/services/harvest/harvest-dates.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };

describe('incremental harvests from responseDate', function () {
  this.timeout(300000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ env: { INDEX_WARMING: 'off' } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node?.stop());

  const seconds = (date: Date): string => date.toISOString().replace(/\.\d+Z$/, 'Z');

  async function publishWhile(pending: Promise<unknown>, prefix: string): Promise<string[]> {
    const ids: string[] = [];
    let done = false;
    void pending.finally(() => { done = true; });
    for (let i = 0; !done && i < 200; i += 1) {
      const id = `${prefix}-${i}`;
      const { body } = await postJson(`${node.url}/publish`, { documents: [{ ...(nsdlDocs(1)[0] as Doc), doc_ID: id }] }, AUTH);
      expect((body.document_results as { OK: boolean }[])[0]?.OK).to.equal(true);
      ids.push(id);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    return ids;
  }

  type JsonPage = { responseDate: string; listidentifiers?: { header: { identifier: string } }[]; resumption_token?: string | null };

  /** The identifiers of a JSON list from its first page on, following its tokens. */
  async function jsonRest(first: JsonPage): Promise<string[]> {
    const ids: string[] = [];
    for (let page: JsonPage | undefined = first; page; ) {
      ids.push(...(page.listidentifiers ?? []).map((entry) => entry.header.identifier));
      page = page.resumption_token ? (await getJson(`${node.url}/harvest/listidentifiers?resumption_token=${encodeURIComponent(page.resumption_token)}`)).body as JsonPage : undefined;
    }
    return ids;
  }

  /** The identifiers of an OAI-PMH list from its first page on, following its tokens. */
  async function oaiRest(first: string): Promise<string[]> {
    const ids: string[] = [];
    for (let xml: string | undefined = first; xml; ) {
      ids.push(...[...xml.matchAll(/<identifier>([^<]+)<\/identifier>/g)].map((match) => match[1] as string));
      const token: string | undefined = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
      xml = token ? await (await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&resumptionToken=${encodeURIComponent(token)}`)).text() : undefined;
    }
    return ids;
  }

  async function backlog(prefix: string): Promise<void> {
    const corpus = nsdlDocs(100);
    const docs = Array.from({ length: 4000 }, (_, i) => ({ ...corpus[i % corpus.length], doc_ID: `${prefix}-${i}` }));
    for (let i = 0; i < docs.length; i += 1000) await postJson(`${node.url}/publish`, { documents: docs.slice(i, i + 1000) }, AUTH);
  }

  it(`a list's responseDate trails the request by ${LIST_RESPONSE_LAG_MS / 1000} s, its errors' too; other verbs answer with the time`, async () => {
    const sent = Date.now();
    const lagged = [
      ((await getJson(`${node.url}/harvest/listidentifiers`)).body.responseDate as string),
      ((await getJson(`${node.url}/harvest/listrecords?from=2999-01-01`)).body.responseDate as string),
      /<responseDate>([^<]+)</.exec(await (await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc`)).text())?.[1] as string,
      /<responseDate>([^<]+)</.exec(await (await fetch(`${node.url}/OAI-PMH?verb=ListRecords&metadataPrefix=oai_dc&from=2999-01-01`)).text())?.[1] as string,
    ];
    for (const date of lagged) expect(Date.parse(date) - sent, date).to.be.within(-LIST_RESPONSE_LAG_MS - 3000, -LIST_RESPONSE_LAG_MS + 1000);
    const current = [
      ((await getJson(`${node.url}/harvest/identify`)).body.responseDate as string),
      /<responseDate>([^<]+)</.exec(await (await fetch(`${node.url}/OAI-PMH?verb=Identify`)).text())?.[1] as string,
    ];
    for (const date of current) expect(Date.parse(date) - sent, date).to.be.within(-1000, 5000);
  });

  it('JSON listidentifiers: what is stored while a list is answered is in that list or in the next one from its responseDate', async () => {
    await backlog('json-backlog');
    const from = seconds(new Date());
    const first = getJson(`${node.url}/harvest/listidentifiers?from=${from}`);
    const late = await publishWhile(first, 'json-late');
    const answer = (await first).body as JsonPage;
    const seen = new Set([...await jsonRest(answer), ...await jsonRest((await getJson(`${node.url}/harvest/listidentifiers?from=${answer.responseDate}`)).body as JsonPage)]);
    expect(late.length).to.be.above(0);
    expect(late.filter((id) => !seen.has(id)), `responseDate ${answer.responseDate}`).to.deep.equal([]);
  });

  it('OAI-PMH ListIdentifiers: the same', async () => {
    await backlog('oai-backlog');
    const from = seconds(new Date());
    const first = fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc&from=${from}`).then((response) => response.text());
    const late = await publishWhile(first, 'oai-late');
    const xml = await first;
    const responseDate = /<responseDate>([^<]+)<\/responseDate>/.exec(xml)?.[1] as string;
    const nextXml = await (await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc&from=${responseDate}`)).text();
    const seen = new Set([...await oaiRest(xml), ...await oaiRest(nextXml)]);
    expect(late.length).to.be.above(0);
    expect(late.filter((id) => !seen.has(id)), `responseDate ${responseDate}`).to.deep.equal([]);
  });
});
