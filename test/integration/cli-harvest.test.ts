/**
 * lr-node harvest as a child process: --from/--until against a real node (JSON harvest and
 * OAI-PMH XML), and a whole harvest from an OAI-PMH 2.0 provider that is not a Learning Registry
 * node (static pages served by the test, resumption tokens, a 503 with Retry-After once).
 */
import fs from 'node:fs';
import http from 'node:http';
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

describe('lr-node harvest: date ranges, and any OAI-PMH 2.0 provider', function () {
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

  describe('a provider that is not a Learning Registry node', () => {
    let server: http.Server;
    let base: string;
    const requests: { query: string; at: number }[] = [];
    let retryAt = 0;

    const record = (header: string, metadata: string, extra = ''): string => `<record>${header}${metadata ? `<metadata>${metadata}</metadata>` : ''}${extra}</record>`;
    const dcRecord = (body: string): string => `<oai_dc:dc xmlns:oai_dc="${OAI_DC}" xmlns:dc="${DC}">${body}</oai_dc:dc>`;
    // Page 2 declares its namespaces once on the root, as some providers do: the record's metadata must still carry them.
    const page = (records: string[], token: string, rootNamespaces = ''): string => `<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${rootNamespaces}
  xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
  <responseDate>2024-03-01T12:00:00Z</responseDate>
  <request verb="ListRecords">http://repository.example.org/oai</request>
  <ListRecords>
    ${records.join('\n    ')}
    ${token}
  </ListRecords>
</OAI-PMH>`;
    const PAGES: Record<string, string> = {
      first: page([
        record('<header><identifier>oai:repository.example.org:1</identifier><datestamp>2023-05-01T10:00:00Z</datestamp><setSpec>math</setSpec><setSpec>math:algebra</setSpec></header>',
          dcRecord('<dc:title>Linear equations</dc:title><dc:creator>Ada Example</dc:creator><dc:identifier>http://repository.example.org/items/1</dc:identifier>')),
        record('<header><identifier>oai:repository.example.org:2</identifier><datestamp>2023-05-02T11:30:00Z</datestamp></header>',
          dcRecord('<dc:title>Fractions &amp; ratios — élève</dc:title><dc:language>fr</dc:language>')),
      ], '<resumptionToken completeListSize="5" cursor="0">page-2</resumptionToken>'),
      'page-2': page([
        record('<header status="deleted"><identifier>oai:repository.example.org:3</identifier><datestamp>2023-06-01T00:00:00Z</datestamp></header>', ''),
        record('<header><identifier>oai:repository.example.org:4</identifier><datestamp>2023-06-02T08:15:00Z</datestamp></header>',
          '<oai_dc:dc><dc:title>Geometry</dc:title><dc:subject>angles</dc:subject></oai_dc:dc>',
          '<about><provenance xmlns="http://www.openarchives.org/OAI/2.0/provenance"/></about>'),
      ], '<resumptionToken completeListSize="5" cursor="2">page-3</resumptionToken>', ` xmlns:oai_dc="${OAI_DC}" xmlns:dc="${DC}"`),
      'page-3': page([
        record('<header><identifier>oai:repository.example.org:5</identifier><datestamp>2023-07-04T16:45:00Z</datestamp></header>',
          dcRecord('<dc:title>Probability</dc:title><dc:title xml:lang="fr">Probabilités</dc:title>')),
      ], '<resumptionToken completeListSize="5" cursor="4"/>'),
    };
    const oaiError = (code: string): string => `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2024-03-01T12:00:00Z</responseDate><request>http://repository.example.org/oai</request><error code="${code}">${code}</error></OAI-PMH>`;

    before(async () => {
      let refusedOnce = false;
      server = http.createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://provider');
        requests.push({ query: url.search, at: Date.now() });
        if (url.pathname !== '/oai/request') { res.writeHead(404); res.end(); return; }
        const args = [...url.searchParams.keys()].sort().join(',');
        const token = url.searchParams.get('resumptionToken');
        // OAI-PMH 2.0 §3.5: resumptionToken is an exclusive argument; the first request names the format.
        let body: string;
        if (url.searchParams.get('verb') !== 'ListRecords') body = oaiError('badVerb');
        else if (token === null) body = args === 'metadataPrefix,verb' && url.searchParams.get('metadataPrefix') === 'oai_dc' ? PAGES.first! : oaiError('badArgument');
        else if (args !== 'resumptionToken,verb' || !PAGES[token] || token === 'first') body = oaiError('badResumptionToken');
        else if (token === 'page-2' && !refusedOnce) {
          refusedOnce = true;
          // An HTTP date (RFC 9110 10.2.3), at least 2.5 s ahead: more than the 1 s the client would wait by itself.
          retryAt = Math.ceil((Date.now() + 2500) / 1000) * 1000;
          res.writeHead(503, { 'retry-after': new Date(retryAt).toUTCString(), 'content-type': 'text/plain' });
          res.end('busy');
          return;
        } else body = PAGES[token]!;
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}/oai/request`;
    });
    after(async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); });

    it('follows the resumption tokens across three pages, waits until the Retry-After date of a 503, and writes each record\'s header and metadata', async () => {
      const run = await lrNode(['harvest', base, '--via', 'oai', '--out', 'provider.jsonl'], { cwd: work });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.equal(`harvested 5 records from ${base} to provider.jsonl\n`);
      expect(run.stderr).to.match(new RegExp(`^harvest: ${new URL(base).host} answered 503, retrying in [23]s$`, 'm'));
      expect(run.stderr).to.match(/^harvest: 5\/5 records \| /m);
      expect(requests.map((r) => r.query)).to.deep.equal([
        '?verb=ListRecords&metadataPrefix=oai_dc',
        '?verb=ListRecords&resumptionToken=page-2',
        '?verb=ListRecords&resumptionToken=page-2',
        '?verb=ListRecords&resumptionToken=page-3',
      ]);
      // Not before the date the 503 named (a few ms for timer rounding).
      expect(requests[2]!.at).to.be.at.least(retryAt - 20);

      const records = readLines(path.join(work, 'provider.jsonl'));
      expect(records.map(headerOf)).to.deep.equal([
        { identifier: 'oai:repository.example.org:1', datestamp: '2023-05-01T10:00:00Z', status: 'active', setSpec: ['math', 'math:algebra'] },
        { identifier: 'oai:repository.example.org:2', datestamp: '2023-05-02T11:30:00Z', status: 'active' },
        { identifier: 'oai:repository.example.org:3', datestamp: '2023-06-01T00:00:00Z', status: 'deleted' },
        { identifier: 'oai:repository.example.org:4', datestamp: '2023-06-02T08:15:00Z', status: 'active' },
        { identifier: 'oai:repository.example.org:5', datestamp: '2023-07-04T16:45:00Z', status: 'active' },
      ]);
      expect(records[2]).to.not.have.property('metadata');
      const metadata = [0, 1, 3, 4].map((i) => parsedMetadata(records[i]!.metadata));
      for (const dc of metadata) expect([dc.namespaceURI, dc.localName]).to.deep.equal([OAI_DC, 'dc']);
      expect(metadata.map((dc) => dcValues(dc, 'title'))).to.deep.equal([['Linear equations'], ['Fractions & ratios — élève'], ['Geometry'], ['Probability', 'Probabilités']]);
      expect(dcValues(metadata[0]!, 'creator')).to.deep.equal(['Ada Example']);
      expect(dcValues(metadata[0]!, 'identifier')).to.deep.equal(['http://repository.example.org/items/1']);
      expect(dcValues(metadata[2]!, 'subject')).to.deep.equal(['angles']);
      expect(metadata[3]!.getElementsByTagNameNS(DC, 'title')[1]!.getAttributeNS('http://www.w3.org/XML/1998/namespace', 'lang')).to.equal('fr');
      expect(records.every((r) => !('resource_data' in r))).to.equal(true);
      expect(JSON.parse(fs.readFileSync(path.join(work, 'provider.jsonl.state.json'), 'utf8'))).to.include({ complete: true, records: 5, total: 5, token: null });
    });
  });
});
