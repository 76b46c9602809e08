/**
 * bench/scaling: how each cost grows with the size of the store (issue 15 asks for a table at
 * 10k, 100k and 1M documents). One publish serves every figure, so a run at 1,000,000 documents
 * takes about an hour rather than a day of separate benchmarks, each loading and indexing anew:
 *  1. --docs N documents through /publish in batches of 1,000 into a fresh node (index warming
 *     on), with the rate of the first and the last tenth, so a slowdown with size shows;
 *  2. the first page of obtain, slice, JSON harvest and OAI-PMH after the publish, all four asked
 *     for at once and each timed from the end of the publish (as `fresh`);
 *  3. the time until /status says every view is current;
 *  4. a restart over what is stored, to the first obtain page;
 *  5. a whole OAI-PMH ListRecords and a whole JSON listrecords harvest, each against the raw
 *     keyset view read of the same rows, with early pages against the deepest ones (issue 15:
 *     deep pages within 1.5x of page 1), for the node and for the store alike;
 *  6. node and store peak RSS while publishing and while harvesting.
 * Ends with the OAI-PMH harvest against its raw read. For publish and first answers against the
 * store's own figures at one size, see `publish` and `fresh`.
 *   --docs N (SCALING_DOCS, default 100000)  --page N (SCALING_PAGE, default 100)
 *   --couchdb URL (BENCH_COUCHDB_URL); BENCH_COUCHDB_PID names its beam.smp for its RSS
 */
import { startNodeProcess, report, round, secondsSince, rssOf, rawViewPages, storePid, type NodeProcess } from './support.js';
import { earlyAndDeep, firstAnswer, firstAnswersAtOnce, harvestJson, harvestOai, type PageTime } from './lib/pages.js';
import { accessServices, corpusSchema, firstPages, publishCorpus, publishingRun } from './lib/publishing.js';
import { codeUnitKey } from '../src/storage/view-keys.js';

const { store, total: TOTAL, page: PAGE } = await publishingRun('SCALING');
const BATCH = 1000;
const services = accessServices(PAGE);
const schema = corpusSchema();
const mb = (bytes: number): number => round(bytes / 2 ** 20);
const say = (line: string): void => { process.stdout.write(`${line}\n`); };

/** Peak RSS of the node and of its store while `work` runs (sampled twice a second). */
async function peaks<T>(node: NodeProcess, work: () => Promise<T>): Promise<{ value: T; node: number; store: number }> {
  const peak = { node: 0, store: 0 };
  const sample = (): void => {
    try {
      peak.node = Math.max(peak.node, rssOf(node.pid));
      const pid = storePid(node);
      if (pid) peak.store = Math.max(peak.store, rssOf(pid));
    } catch { /* a process between restarts */ }
  };
  sample();
  const sampler = setInterval(sample, 500);
  try {
    const value = await work();
    sample();
    return { value, ...peak };
  } finally {
    clearInterval(sampler);
  }
}

const rssLine = (what: string, p: { node: number; store: number }): string => `${what}: peak RSS node ${mb(p.node)} MB${p.store ? `, store ${mb(p.store)} MB` : ''}`;

/** Waits until /status reports every view current (it answers from cheap state, never waiting for an index). */
async function untilViewsCurrent(node: NodeProcess): Promise<void> {
  for (;;) {
    const status = await (await fetch(`${node.url}/status`)).json() as { views_current?: boolean };
    if (status.views_current) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function pagesLine(what: string, ours: PageTime[], raw: PageTime[]): string {
  const o = earlyAndDeep(ours);
  const r = earlyAndDeep(raw);
  return `${what} pages of ${PAGE}: pages 2-11 ${round(o.early)} ms, pages ${o.deepFrom}+ ${round(o.deep)} ms (${round(o.deep / o.early, 2)}x); raw ${round(r.early)} ms, ${round(r.deep)} ms (${round(r.deep / r.early, 2)}x)`;
}

let node = await startNodeProcess({ services }, store);
try {
  say(`publishing ${TOTAL} documents in batches of ${BATCH} into a fresh node (index warming on)`);
  const tenth = Math.max(BATCH, Math.floor(TOTAL / 10 / BATCH) * BATCH);
  const marks: { stored: number; at: bigint }[] = [{ stored: 0, at: process.hrtime.bigint() }];
  const publish = await peaks(node, () => publishCorpus(node, TOTAL, BATCH, (stored) => {
    if (stored % tenth === 0 || stored === TOTAL) marks.push({ stored, at: process.hrtime.bigint() });
  }));
  const rateOf = (a: typeof marks[number], b: typeof marks[number]): number => (b.stored - a.stored) / (Number(b.at - a.at) / 1e9);
  const [m0, m1] = [marks[0], marks[1]];
  const [mLast, mBefore] = [marks[marks.length - 1], marks[marks.length - 2]];
  say(`publish: ${round(TOTAL / publish.value)} docs/s; first tenth ${m0 && m1 ? round(rateOf(m0, m1)) : '-'} docs/s, last tenth ${mLast && mBefore ? round(rateOf(mBefore, mLast)) : '-'} docs/s`);
  say(rssLine('publishing', publish));
  const published = process.hrtime.bigint();

  let slowest = 0;
  for (const { name, ms, retries } of await firstAnswersAtOnce(node.url, firstPages(schema))) {
    slowest = Math.max(slowest, ms);
    say(`first ${name} page after the publish (all four asked at once): ${round(ms)} ms${retries ? ` (${retries} answers 503 before it)` : ''}`);
  }
  await untilViewsCurrent(node);
  say(`every view current ${round(secondsSince(published))} s after the publish (slowest first page ${round(slowest)} ms)`);

  await node.close(true);
  const restarted = process.hrtime.bigint();
  node = await startNodeProcess({ services }, store, {}, node);
  const listening = secondsSince(restarted) * 1000;
  const { ms } = await firstAnswer(`${node.url}/obtain`);
  say(`restart over ${TOTAL} documents: listening after ${round(listening)} ms, first obtain page after ${round(listening + ms)} ms`);

  const harvests = await peaks(node, async () => {
    const oai = await harvestOai(node.url, schema);
    const rawOai = await rawViewPages(node, 'oai-pmh', 'by_schema', PAGE, { startkey: [codeUnitKey(schema)], endkey: [codeUnitKey(schema), {}] });
    const json = await harvestJson(node.url);
    const rawJson = await rawViewPages(node, 'harvest', 'by_node_timestamp', PAGE, {});
    return { oai, rawOai, json, rawJson };
  });
  const { oai, rawOai, json, rawJson } = harvests.value;
  for (const [name, count] of [['ListRecords', oai.count], ['raw by_schema', rawOai.count], ['listrecords', json.count], ['raw by_node_timestamp', rawJson.count]] as const) {
    if (count !== TOTAL) throw new Error(`${name} read ${count} records, ${TOTAL} are stored`);
  }
  const rate = (r: { count: number; seconds: number }): number => r.count / r.seconds;
  say(`OAI-PMH ListRecords ${schema}: ${round(rate(oai))} records/s; raw view read ${round(rate(rawOai))} records/s; ratio ${round(rate(oai) / rate(rawOai), 2)}`);
  say(pagesLine('OAI-PMH ListRecords', oai.pages, rawOai.pages));
  say(`JSON listrecords: ${round(rate(json))} records/s; raw view read ${round(rate(rawJson))} records/s; ratio ${round(rate(json) / rate(rawJson), 2)}`);
  say(pagesLine('JSON listrecords', json.pages, rawJson.pages));
  say(rssLine('harvesting', harvests));
  report('scaling', rate(oai), rate(rawOai), 'records/s');
} finally {
  await node.close();
}
