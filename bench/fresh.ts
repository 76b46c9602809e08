/**
 * bench/fresh: what a user meets after a bulk publish into a fresh node — the time until the first
 * page of obtain, slice, JSON harvest and OAI-PMH ListRecords each arrive (issue 15: under 2 s at
 * 100,000 documents), all four asked for at once when the publish ends. No view is built
 * beforehand: the node keeps its indexes current while the documents arrive (INDEX_WARMING, on by
 * default). A request answered 503 (index still building) is retried after its Retry-After, and
 * each time counts from the end of the publish to the page.
 *
 * PUBLISH_MAX_INDEX_LAG=N in the bench's environment runs the node with publishing paced by its
 * indexes (src/storage/index-pacer.ts): the publish is slower and the first pages come at once, so
 * the bench also prints the time from the start of the publish to the slowest first page, beside
 * the raw load's and reads' together.
 *
 * Then the node is restarted on what it stored, and the time to its first obtain page is printed.
 *
 * Raw: a second fresh store gets the same documents by `_bulk_docs` in the stored shape, with the
 * node's design docs in place and its warmer off, then the same first view reads go straight to
 * the store, at once; each waits for its index to be built, as any CouchDB client's first query does.
 *   --docs N (FRESH_DOCS, default 100000)  --page N (FRESH_PAGE, default 100: doc_limit)
 *   --couchdb URL (BENCH_COUCHDB_URL): both nodes and the raw reads on that CouchDB 3.x
 */
import { startNodeProcess, report, round, secondsSince, loadBenchCorpus, rssOf, type NodeProcess } from './support.js';
import { firstAnswer, firstAnswersAtOnce } from './lib/pages.js';
import { accessServices, corpusSchema, firstPages, publishCorpus, publishingRun } from './lib/publishing.js';
import { codeUnitKey } from '../src/storage/view-keys.js';

const { store, total: TOTAL, page: PAGE } = await publishingRun('FRESH');
const BATCH = 1000;
const services = accessServices(PAGE);
const schema = corpusSchema();

const FIRST_PAGES = firstPages(schema);

/** The same first reads, straight to the store (limit = one page, include_docs). */
const RAW_FIRST_READS: [string, string, string, Record<string, unknown>][] = [
  ['obtain', 'harvest', 'by_node_timestamp', { descending: true }],
  ['slice', 'slice', 'by_tag', { startkey: [codeUnitKey('topic-7')], endkey: [codeUnitKey('topic-7'), {}] }],
  ['JSON harvest', 'harvest', 'by_node_timestamp', {}],
  ['OAI-PMH ListRecords', 'oai-pmh', 'by_schema', { startkey: [codeUnitKey(schema)], endkey: [codeUnitKey(schema), {}] }],
];

/** Milliseconds until a raw first view read answers (CouchDB may answer `timeout` while it builds: ask again). */
async function rawFirstRead(node: NodeProcess, ddoc: string, view: string, range: Record<string, unknown>): Promise<number> {
  const db = node.couch.use(node.names.resourceData);
  const started = process.hrtime.bigint();
  for (;;) {
    try {
      await db.view(ddoc, view, { ...range, limit: PAGE, include_docs: true });
      return secondsSince(started) * 1000;
    } catch (error) {
      if ((error as { error?: string }).error !== 'timeout') throw error;
    }
  }
}

let node = await startNodeProcess({ services }, store);
let slowest = 0;
let publishSeconds: number | undefined;
const paced = process.env.PUBLISH_MAX_INDEX_LAG;
try {
  process.stdout.write(`publishing ${TOTAL} documents in batches of ${BATCH} into a fresh node (index warming on${paced ? `, PUBLISH_MAX_INDEX_LAG=${paced}` : ''})... `);
  let peakRss = rssOf(node.pid);
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssOf(node.pid)); }, 500);
  publishSeconds = await publishCorpus(node, TOTAL, BATCH);
  process.stdout.write(`${round(TOTAL / publishSeconds)} docs/s\n`);
  for (const { name, ms, retries } of await firstAnswersAtOnce(node.url, FIRST_PAGES)) {
    slowest = Math.max(slowest, ms);
    process.stdout.write(`first ${name} page (all four asked at once): ${round(ms)} ms${retries ? ` (${retries} answers 503 before it)` : ''}\n`);
  }
  clearInterval(sampler);
  process.stdout.write(`node process peak RSS: ${round(peakRss / 2 ** 20)} MB\n`);
  // A restart over what is stored: from the command to the first obtain page (issue 15: under 5 s).
  await node.close(true);
  const restarted = process.hrtime.bigint();
  node = await startNodeProcess({ services }, store, {}, node);
  const listening = secondsSince(restarted) * 1000;
  const { ms } = await firstAnswer(`${node.url}/obtain`);
  process.stdout.write(`restart over ${TOTAL} documents: listening after ${round(listening)} ms, first obtain page after ${round(listening + ms)} ms\n`);
} finally {
  await node.close();
}

const raw = await startNodeProcess({ services }, store, { INDEX_WARMING: 'off', PUBLISH_MAX_INDEX_LAG: 'off' });
let rawSlowest = 0;
let rawLoadSeconds: number | undefined;
try {
  process.stdout.write(`raw: ${TOTAL} documents by _bulk_docs into a fresh store, then each first view read... `);
  const loading = process.hrtime.bigint();
  await loadBenchCorpus(raw, TOTAL, 1000);
  rawLoadSeconds = secondsSince(loading);
  process.stdout.write(`${round(TOTAL / rawLoadSeconds)} docs/s\n`);
  // At once, as the node's first pages are asked for.
  const rawTimes = await Promise.all(RAW_FIRST_READS.map(([, ddoc, view, range]) => rawFirstRead(raw, ddoc, view, range)));
  RAW_FIRST_READS.forEach(([name], index) => {
    const ms = rawTimes[index] ?? 0;
    rawSlowest = Math.max(rawSlowest, ms);
    process.stdout.write(`raw first ${name} read (all four at once): ${round(ms)} ms\n`);
  });
} finally {
  await raw.close();
}
process.stdout.write(`from the start of the publish to the slowest first page: ${round((publishSeconds ?? 0) + slowest / 1000)} s; raw load and reads: ${round((rawLoadSeconds ?? 0) + rawSlowest / 1000)} s\n`);
report('fresh', slowest, rawSlowest, 'ms');
