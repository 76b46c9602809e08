/**
 * Interoperability: the node harvested by an independent OAI-PMH client, Debian's
 * libhttp-oai-perl (`oai_pmh`, HTTP::OAI), installed by .ci/run. The client follows resumption
 * tokens itself and prints each record followed by a form feed; the harvested counts must equal
 * the stored counts, with pages of one record and of several.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestNode, settled, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { requireProgram } from '../support/programs.js';

const run = promisify(execFile);
const SERVICE_DOC = 'access:OAI-PMH Harvest service';

/** Runs oai_pmh asynchronously (the node answers from this same process). */
async function oaiPmh(node: TestNode, args: string[]): Promise<string> {
  const { stdout } = await run('oai_pmh', [...args, `${node.url}/OAI-PMH`], { encoding: 'utf8', timeout: 120000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const records = (output: string): number => (output.match(/\f/g) ?? []).length;
const identifiers = (output: string): string[] => [...output.matchAll(/^\f?identifier: (.*)$/gm)].map((m) => m[1] as string);

/** Page sizes are read from the service description at each request: change them in CouchDB (records and headers alike). */
async function setPageSize(node: TestNode, size: number): Promise<void> {
  const db = node.couch.use(node.names.node);
  const doc = await db.get(SERVICE_DOC) as unknown as { service_data: Record<string, unknown> };
  doc.service_data.doc_limit = size;
  doc.service_data.id_limit = size;
  await db.insert(doc as never);
  await settled(node);
}

describe('OAI-PMH interoperability with HTTP::OAI (oai_pmh)', function () {
  this.timeout(180000);
  let node: TestNode;
  const STORED = 23;
  before(async function () {
    requireProgram('oai_pmh');
    node = await startTestNode();
    await loadStoredCorpus(node, STORED);
    await node.couch.use(node.names.resourceData).bulk({ docs: [
      { _id: 'marked', doc_ID: 'marked', doc_type: 'resource_data', payload_placement: 'inline', payload_schema: ['nsdl_dc'], resource_data: '<x/>', node_deleted: '2020-01-01T01:00:00.000000Z', node_timestamp: '2020-01-01T01:00:00.000000Z' },
    ] as never[] });
  });
  after(async () => node?.stop());

  for (const size of [1, 4, 100]) {
    it(`ListIdentifiers and ListRecords harvest every stored record with pages of ${size}`, async () => {
      await setPageSize(node, size);
      const headers = await oaiPmh(node, ['-X', 'ListIdentifiers', '--metadataPrefix', 'nsdl_dc']);
      expect(records(headers)).to.equal(STORED + 1);
      expect(identifiers(headers).slice(0, 3)).to.deep.equal(['doc-00000', 'doc-00001', 'doc-00002']);
      expect(headers).to.include('identifier: marked\ndatestamp: 2020-01-01T01:00:00Z\nstatus: deleted');
      const full = await oaiPmh(node, ['-X', 'ListRecords', '--metadataPrefix', 'nsdl_dc']);
      expect(records(full)).to.equal(STORED + 1);
      expect((full.match(/<nsdl_dc:nsdl_dc /g) ?? []).length).to.equal(STORED);
    });
  }

  it('a date range harvest, ListMetadataFormats and GetRecord', async () => {
    await setPageSize(node, 2);
    const range = await oaiPmh(node, ['-X', 'ListIdentifiers', '--metadataPrefix', 'nsdl_dc', '--from', '2020-01-01T00:00:05Z', '--until', '2020-01-01T00:00:09Z']);
    expect(identifiers(range)).to.deep.equal(['doc-00005', 'doc-00006', 'doc-00007', 'doc-00008', 'doc-00009']);
    const formats = await oaiPmh(node, ['-X', 'ListMetadataFormats']);
    expect(formats).to.include('metadataPrefix: nsdl_dc');
    // HTTP::OAI sends only URI-shaped identifiers unless forced: a plain doc_ID needs --force,
    // the oai-identifier form earlier versions advertised does not (the node still accepts it).
    const forced = await oaiPmh(node, ['--force', '-X', 'GetRecord', '--identifier', 'doc-00003', '--metadataPrefix', 'nsdl_dc']);
    expect(identifiers(forced)).to.deep.equal(['doc-00003']);
    const standard = await oaiPmh(node, ['-X', 'GetRecord', '--identifier', 'oai:lr-node.invalid:doc-00004', '--metadataPrefix', 'nsdl_dc']);
    expect(identifiers(standard)).to.deep.equal(['doc-00004']);
    expect(standard).to.include('<nsdl_dc:nsdl_dc');
  });
});
