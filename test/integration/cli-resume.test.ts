/** lr-node publish and harvest interrupted by SIGINT (and harvest by SIGKILL) resume with no duplicate and no gap. */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SAMPLE_CORPUS } from '../../src/sample-data.js';
import { exitOf } from '../support/process.js';
import { startTestNode, addAccount, tempDir, type TestNode } from '../support/node.js';
import { ensureBuilt, lrNode, spawnCli, startProxy, until, type Proxy } from '../support/cli.js';

type Doc = Record<string, unknown>;
const readLines = (file: string): Doc[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Doc);
const stateOf = (file: string): Doc | undefined => { try { return JSON.parse(fs.readFileSync(file, 'utf8')) as Doc; } catch { return undefined; } };
const PASSWORD = 'resume-publisher-phrase-3';
// Pages of 10 so that a harvest of the corpus takes several requests; small publish requests.
const MSG_SIZE_LIMIT = 20000;
const SMALL_PAGES = { services: {
  publish: { service_data: { doc_limit: 4, msg_size_limit: MSG_SIZE_LIMIT } },
  harvest: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 10, id_limit: 100, flow_control: true, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }], setSpec: null } },
  oai_pmh: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 10, id_limit: 100, flow_control: true, version: 'OAI-PMH 2.0', metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }] } },
} };

describe('lr-node publish and harvest resume after an interruption', function () {
  this.timeout(300000);
  let node: TestNode;
  let proxy: Proxy;
  let work: string;

  before(async () => {
    ensureBuilt();
    node = await startTestNode({ nodeConfig: SMALL_PAGES });
    await addAccount(node, 'pub', PASSWORD);
    // Every request is slowed down so that the interruption lands mid-way.
    proxy = await startProxy(node.url, { delayMs: 60 });
    work = tempDir('lr-node-resume-');
  });
  after(async () => { await proxy.close(); await node.stop(); });

  it('publish: SIGINT mid-way saves what the node acknowledged; the rerun sends only the rest', async () => {
    const args = ['publish', proxy.url, SAMPLE_CORPUS, '--batch-size', '3'];
    const env = { LR_USER: 'pub', LR_PASSWORD: PASSWORD };
    const first = spawnCli(args, { env, cwd: work });
    const stateFile = path.join(work, 'lr-publish.state.json');
    await until(() => Number(stateOf(stateFile)?.acknowledged ?? 0) >= 30, 60000, '30 acknowledged documents');
    first.child.kill('SIGINT');
    const { code } = await exitOf(first.child, 60000);
    const interrupted = first.output();
    expect(code, interrupted.stderr).to.equal(130);
    const saved = stateOf(stateFile)!;
    expect(saved.acknowledged).to.be.within(30, 99);
    expect(interrupted.stderr).to.contain(`publish: interrupted after ${String(saved.acknowledged)} of 100 documents (state in lr-publish.state.json): run the same command again to send the rest\n`);
    expect((await node.couch.use(node.names.resourceData).info()).doc_count).to.be.at.least(Number(saved.acknowledged));

    const bodiesBefore = proxy.bodies.length;
    const rest = await lrNode(args, { env, cwd: work });
    expect(rest.code, rest.stderr).to.equal(0);
    // The rerun sent exactly the documents the node had not acknowledged, each once.
    const resent = proxy.bodies.slice(bodiesBefore).flatMap((body) => (JSON.parse(body) as { documents: Doc[] }).documents.map((d) => d.doc_ID));
    expect(resent).to.have.length(100 - Number(saved.acknowledged));
    const sentFirst = proxy.bodies.slice(0, bodiesBefore).flatMap((body) => (JSON.parse(body) as { documents: Doc[] }).documents.map((d) => d.doc_ID));
    expect(new Set([...sentFirst, ...resent]).size).to.equal(sentFirst.length + resent.length);
    expect(rest.stdout).to.equal(`published 100 documents to ${proxy.url}: 100 accepted, 0 rejected\n`);
    // Once more: everything was acknowledged, so nothing is sent, and the command says so.
    const bodiesDone = proxy.bodies.length;
    const again = await lrNode(args, { env, cwd: work });
    expect(again.code, again.stderr).to.equal(0);
    expect(proxy.bodies.length).to.equal(bodiesDone);
    expect(again.stdout).to.equal(`nothing sent: the 100 documents were sent to ${proxy.url} by an earlier run (state in lr-publish.state.json): 100 accepted, 0 rejected\n`);

    const harvested = await lrNode(['harvest', node.url, '--out', 'published.jsonl'], { cwd: work });
    expect(harvested.code, harvested.stderr).to.equal(0);
    const ids = readLines(path.join(work, 'published.jsonl')).map((r) => (r.header as Doc).identifier);
    expect(ids).to.have.length(100);
    expect(new Set(ids).size).to.equal(100);
  });

  it('publish: requests stay within the doc_limit and msg_size_limit the node advertises; a document over the limit is reported', async () => {
    const corpus = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Doc[] };
    const big = { ...corpus.documents[0]!, resource_data: 'x'.repeat(MSG_SIZE_LIMIT) };
    const input = path.join(work, 'limits.json');
    fs.writeFileSync(input, JSON.stringify([...corpus.documents.slice(0, 30), big]));
    const before = proxy.requests.length;
    const run = await lrNode(['publish', proxy.url, input, '--state', 'limits.state', '--report', 'limits.rejected'], { env: { LR_USER: 'pub', LR_PASSWORD: PASSWORD }, cwd: work });
    expect(run.code, run.stderr).to.equal(4);
    expect(run.stdout).to.equal(`published 31 documents to ${proxy.url}: 30 accepted, 1 rejected (see limits.rejected)\n`);
    const posts = proxy.requests.slice(before).filter((r) => r.startsWith('POST /publish')).map((r) => Number(r.split(' ')[2]));
    expect(posts.length).to.be.at.least(8); // 30 documents, at most 4 a request
    for (const bytes of posts) expect(bytes).to.be.at.most(MSG_SIZE_LIMIT);
    const [rejected] = readLines(path.join(work, 'limits.rejected'));
    expect(rejected).to.include({ index: 30, doc_ID: null });
    expect(rejected!.error).to.match(/^larger than the node's msg_size_limit \(\d+ > 20000 bytes\): not sent$/);
  });

  for (const via of ['json', 'oai'] as const) {
    it(`harvest --via ${via}: SIGINT and SIGKILL mid-way, each rerun continues from the last token`, async () => {
      const out = `resume-${via}.jsonl`;
      const args = ['harvest', proxy.url, '--via', via, '--prefix', 'LR_JSON_0.10.0', '--out', out];
      const reference = await lrNode(['harvest', node.url, '--via', via, '--prefix', 'LR_JSON_0.10.0', '--out', `reference-${via}.jsonl`], { cwd: work });
      expect(reference.code, reference.stderr).to.equal(0);
      const stateFile = path.join(work, `${out}.state.json`);

      const first = spawnCli(args, { cwd: work });
      await until(() => Number(stateOf(stateFile)?.records ?? 0) >= 20, 60000, '20 harvested records');
      first.child.kill('SIGINT');
      expect((await exitOf(first.child, 60000)).code, first.output().stderr).to.equal(130);
      const afterSigint = Number(stateOf(stateFile)!.records);
      expect(afterSigint).to.be.within(20, 90);
      expect(first.output().stderr).to.contain(`harvest: interrupted after ${afterSigint} records`);

      const second = spawnCli(args, { cwd: work });
      await until(() => Number(stateOf(stateFile)?.records ?? 0) >= afterSigint + 20, 60000, '20 more records');
      second.child.kill('SIGKILL');
      await exitOf(second.child, 60000);
      // A hard kill may leave bytes after the last saved page: the rerun cuts them off.
      fs.appendFileSync(path.join(work, out), '{"partial": ');

      const last = await lrNode(args, { cwd: work });
      expect(last.code, last.stderr).to.equal(0);
      const records = readLines(path.join(work, out));
      expect(records.map((r) => (r.header as Doc).identifier)).to.deep.equal(readLines(path.join(work, `reference-${via}.jsonl`)).map((r) => (r.header as Doc).identifier));
      expect(records).to.deep.equal(readLines(path.join(work, `reference-${via}.jsonl`)));
      expect(records.length).to.be.at.least(100);

      const requests = proxy.requests.length;
      const done = await lrNode(args, { cwd: work });
      expect(done.code).to.equal(0);
      expect(readLines(path.join(work, out))).to.have.length(records.length);
      // A harvest that ended is not repeated, and the rerun says so rather than "harvested".
      expect(proxy.requests.length).to.equal(requests);
      expect(done.stdout).to.equal(`nothing fetched: ${out} holds the ${records.length} records of a harvest that ended (its state file ${out}.state.json says so); --overwrite harvests the list again, and another --out with --from the records since\n`);
    });
  }
});
