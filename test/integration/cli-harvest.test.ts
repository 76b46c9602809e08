/** lr-node harvest as a child process: --from/--until against a real node (JSON harvest and OAI-PMH XML). */
import fs from 'node:fs';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { expect } from 'chai';
import { SAMPLE_CORPUS } from '../../src/sample-data.js';
import { addAccount, startTestNode, tempDir, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { ensureBuilt, lrNode } from '../support/cli.js';

type Doc = Record<string, unknown>;
const readLines = (file: string): Doc[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Doc);
const headerOf = (record: Doc): Doc => record.header as Doc;

const OAI_DC = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const DC = 'http://purl.org/dc/elements/1.1/';

/** A metadata string of the output as a document of its own (it must carry its namespace declarations). */
function parsedMetadata(xml: unknown): Element {
  expect(xml).to.be.a('string');
  const doc = new DOMParser({ onError: (level, message) => { if (level !== 'warning') throw new Error(`${message}: ${String(xml)}`); } }).parseFromString(xml as string, 'text/xml');
  return doc.documentElement as unknown as Element;
}
const dcValues = (root: Element, name: string): string[] => Array.from(root.getElementsByTagNameNS(DC, name)).map((e) => (e.textContent ?? '').trim());

describe('lr-node harvest: date ranges', function () {
  this.timeout(300000);
  let work: string;

  before(() => {
    ensureBuilt();
    work = tempDir('lr-node-harvest-');
  });

  describe('--from/--until against a node', () => {
    let node: TestNode;
    let docs: Doc[];
    // Pages of 4: a range of 10 takes three pages, whose tokens must keep the range.
    const service = (extra: Doc): Doc => ({ service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 4, id_limit: 100, flow_control: true, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }], ...extra } });

    before(async () => {
      node = await startTestNode({ nodeConfig: { services: { harvest: service({ setSpec: null }), oai_pmh: service({ version: 'OAI-PMH 2.0' }) } } });
      // doc-00000 … doc-00029, node_timestamp 2020-01-01T00:00:00Z + i seconds.
      docs = await loadStoredCorpus(node, 30);
    });
    after(async () => { await node?.stop(); });

    const ids = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `doc-${String(from + i).padStart(5, '0')}`);
    const stamp = (i: number): string => `2020-01-01T00:00:${String(i).padStart(2, '0')}Z`;

    async function harvested(out: string, args: string[]): Promise<Doc[]> {
      const run = await lrNode(['harvest', node.url, '--out', out, ...args], { cwd: work });
      expect(run.code, run.stderr).to.equal(0);
      return readLines(path.join(work, out));
    }

    it('--via json: exactly the documents whose node_timestamp is in the range, both ends included', async () => {
      const records = await harvested('range.jsonl', ['--from', stamp(10), '--until', stamp(19)]);
      expect(records.map((r) => (r.resource_data as Doc).doc_ID)).to.deep.equal(ids(10, 19));
      expect(records.map((r) => headerOf(r).datestamp)).to.deep.equal(ids(10, 19).map((_, i) => stamp(10 + i)));
      expect(records.map((r) => (r.resource_data as Doc).node_timestamp)).to.deep.equal(docs.slice(10, 20).map((d) => d.node_timestamp));
      expect((await harvested('from.jsonl', ['--from', stamp(25)])).map((r) => (r.resource_data as Doc).doc_ID)).to.deep.equal(ids(25, 29));
      expect((await harvested('until.jsonl', ['--until', stamp(3)])).map((r) => (r.resource_data as Doc).doc_ID)).to.deep.equal(ids(0, 3));
      expect(await harvested('none.jsonl', ['--from', '2021-01-01'])).to.deep.equal([]);
    });

    it('--via oai --prefix oai_dc: the same range read from OAI-PMH XML, each record\'s Dublin Core its document\'s', async () => {
      const records = await harvested('range-oai.jsonl', ['--via', 'oai', '--prefix', 'oai_dc', '--from', stamp(10), '--until', stamp(19)]);
      expect(records.map((r) => headerOf(r).identifier)).to.deep.equal(ids(10, 19));
      expect(records.map((r) => headerOf(r).datestamp)).to.deep.equal(ids(10, 19).map((_, i) => stamp(10 + i)));
      expect(records.map((r) => headerOf(r).status)).to.deep.equal(Array(10).fill('active'));
      records.forEach((record, i) => {
        const doc = docs[10 + i]!;
        expect(record).to.not.have.property('resource_data');
        const dc = parsedMetadata(record.metadata);
        expect([dc.namespaceURI, dc.localName]).to.deep.equal([OAI_DC, 'dc']);
        // The document's resource_locator is one of the identifiers; its payload's titles are the record's.
        expect(dcValues(dc, 'identifier')).to.include(doc.resource_locator);
        const payload = new DOMParser().parseFromString(doc.resource_data as string, 'text/xml').documentElement as unknown as Element;
        expect(dcValues(dc, 'title')).to.deep.equal(dcValues(payload, 'title')).and.not.deep.equal([]);
      });
      // The JSON metadata prefix over OAI-PMH gives the same range too.
      const lrJson = await harvested('range-lr.jsonl', ['--via', 'oai', '--prefix', 'LR_JSON_0.10.0', '--from', stamp(10), '--until', stamp(19)]);
      expect(lrJson.map((r) => (r.resource_data as Doc).doc_ID)).to.deep.equal(ids(10, 19));
    });
    it('documents published now: --from the second the publish began gives exactly them, --until the second before it none of them', async () => {
      await addAccount(node, 'pub', 'range-publisher-phrase-8');
      const input = path.join(work, 'three.json');
      fs.writeFileSync(input, JSON.stringify({ documents: (JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Doc[] }).documents.slice(0, 3) }));
      const began = new Date(Math.floor(Date.now() / 1000) * 1000);
      const second = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;
      const published = await lrNode(['publish', node.url, input, '--state', 'three.state', '--report', 'three.rejected'], { env: { LR_USER: 'pub', LR_PASSWORD: 'range-publisher-phrase-8' }, cwd: work });
      expect(published.code, published.stderr).to.equal(0);
      const all = await harvested('all.jsonl', []);
      const fresh = all.filter((r) => !String((r.resource_data as Doc).doc_ID).startsWith('doc-'));
      expect(fresh).to.have.length(3);
      for (const via of [['--via', 'json'], ['--via', 'oai', '--prefix', 'oai_dc']]) {
        const recent = await harvested(`recent-${via[1]!}.jsonl`, [...via, '--from', second(began)]);
        expect(recent.map((r) => headerOf(r).datestamp)).to.deep.equal(fresh.map((r) => headerOf(r).datestamp));
        expect(recent.map((r) => headerOf(r).identifier)).to.deep.equal(fresh.map((r) => headerOf(r).identifier));
        const older = await harvested(`older-${via[1]!}.jsonl`, [...via, '--until', second(new Date(began.getTime() - 1000))]);
        expect(older.map((r) => headerOf(r).identifier)).to.deep.equal(ids(0, 29));
      }
    });
  });
});
