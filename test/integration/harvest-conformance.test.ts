/**
 * What publishers and harvesters met that the spec says otherwise (issue 13, items 4-12): slice
 * tokens, the JSON prefix, oai_dc for every record, lists that end normally, ListIdentifiers and
 * ListRecords agreeing, schema-valid inline XML, URI doc_IDs, the getrecord echo, no one-record
 * pages. Every OAI-PMH response is validated with xmllint.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';

const run = promisify(execFile);
const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const JSON_PREFIX = 'LR_JSON_0.10.0';
const PAGE = 10;
const URN_UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Result = { doc_ID: string; OK: boolean; error?: string };
const identifiers = (xml: string): string[] => [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1] as string);
const tokenOf = (xml: string): string | undefined => /<resumptionToken[^>]*>([^<]*)<\/resumptionToken>|<resumptionToken[^>]*\/>/.exec(xml)?.[1] ?? (/<resumptionToken[^>]*\/>/.test(xml) ? '' : undefined);
const errorCode = (xml: string): string | undefined => /<error code="([^"]+)"/.exec(xml)?.[1];

export function plainDoc(fields: Doc = {}): Doc {
  const { doc_ID: _id, ...doc } = nsdlDocs(1)[0] as Doc;
  void _id;
  return { ...doc, ...fields };
}

describe('harvest conformance (issue 13, items 4-12)', function () {
  this.timeout(120000);
  let node: TestNode;

  async function publish(documents: Doc[]): Promise<Result[]> {
    const results: Result[] = [];
    for (let i = 0; i < documents.length; i += 100) {
      const { status, body } = await postJson(`${node.url}/publish`, { documents: documents.slice(i, i + 100) }, AUTH);
      expect(status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      results.push(...(body.document_results as Result[]));
    }
    return results;
  }

  async function oai(query: string): Promise<{ status: number; text: string; type: string | null }> {
    const response = await fetch(`${node.url}/OAI-PMH?${query}`);
    return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
  }

  /** A whole OAI-PMH list, every page validated; the records per page. */
  async function harvest(verb: string, args: string): Promise<{ ids: string[]; pages: string[]; sizes: number[] }> {
    const ids: string[] = [];
    const pages: string[] = [];
    const sizes: number[] = [];
    let query = `verb=${verb}&${args}`;
    for (let guard = 0; guard < 100; guard += 1) {
      const { text } = await oai(query);
      assertValidOai(text, 'official');
      expect(errorCode(text), text.slice(0, 600)).to.equal(undefined);
      pages.push(text);
      const found = identifiers(text);
      ids.push(...found);
      sizes.push(found.length);
      const token = tokenOf(text);
      if (!token) break;
      query = `verb=${verb}&resumptionToken=${encodeURIComponent(token)}`;
    }
    return { ids, pages, sizes };
  }

  before(async () => {
    const data = { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE, metadataformats: [{ metadataFormat: { metadataPrefix: JSON_PREFIX } }] };
    node = await startTestNode({ nodeConfig: {
      services: { oai_pmh: { service_data: data }, harvest: { service_data: data }, slice: { service_data: { doc_limit: PAGE } } },
    } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  describe('10. identifiers harvesters accept', () => {
    let id: string;
    before(async () => {
      const [result] = await publish([plainDoc({ keys: ['uri-id'] })]);
      expect(result?.OK, result?.error).to.equal(true);
      id = result?.doc_ID as string;
    });

    it('a generated doc_ID is a urn:uuid URI, served by every access service', async () => {
      expect(id).to.match(URN_UUID);
      const obtained = await getJson(`${node.url}/obtain?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
      expect((obtained.body.documents as { doc_ID: string }[])[0]?.doc_ID).to.equal(id);
      const record = await getJson(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
      expect(record.body.OK).to.equal(true);
      const sliced = await getJson(`${node.url}/slice?any_tags=uri-id`);
      expect((sliced.body.documents as { doc_ID: string }[]).map((d) => d.doc_ID)).to.deep.equal([id]);
      const { text } = await oai(`verb=GetRecord&identifier=${encodeURIComponent(id)}&metadataPrefix=nsdl_dc`);
      assertValidOai(text, 'official');
      expect(identifiers(text)).to.deep.equal([id]);
    });

    it('HTTP::OAI takes it without --force; Identify advertises no oai-identifier scheme', async () => {
      const { stdout } = await run('oai_pmh', ['-X', 'GetRecord', '--identifier', id, '--metadataPrefix', 'nsdl_dc', `${node.url}/OAI-PMH`], { encoding: 'utf8', timeout: 60000 });
      expect(stdout).to.include(`identifier: ${id}`);
      const identify = await oai('verb=Identify');
      assertValidOai(identify.text, 'official');
      expect(identify.text).not.to.include('oai-identifier');
    });
  });

  describe('11. the getrecord request echo', () => {
    it('echoes both flags as JSON booleans, whatever spelling was sent', async () => {
      const [result] = await publish([plainDoc({ doc_ID: 'echo-1' })]);
      expect(result?.OK).to.equal(true);
      const byDoc = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1&by_doc_ID=true`);
      expect(byDoc.body.request).to.include({ identifier: 'echo-1', by_doc_ID: true, by_resource_ID: true });
      const spelled = await getJson(`${node.url}/harvest/getrecord?request_ID=echo-1&by_doc_ID=T&by_resource_ID=F`);
      expect(spelled.body.request).to.include({ by_doc_ID: true, by_resource_ID: false });
      const posted = await postJson(`${node.url}/harvest/getrecord`, { request_ID: 'echo-1', by_doc_ID: 'T' });
      expect(posted.body.request).to.include({ by_doc_ID: true, by_resource_ID: true });
    });
  });
});
