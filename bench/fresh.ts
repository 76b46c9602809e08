/**
 * bench/fresh: what a user meets after a bulk publish into a fresh node — the time until the first
 * page of obtain, slice, JSON harvest and OAI-PMH ListRecords each arrive (issue 15: under 2 s at
 * 100,000 documents). No view is built beforehand: the node keeps its indexes current while the
 * documents arrive (INDEX_WARMING, on by default). A request answered 503 (index still building)
 * is retried after its Retry-After, and the time counts from the end of the publish to the page.
 *
 * Then the node is restarted on what it stored, and the time to its first obtain page is printed.
 *
 * Raw: a second fresh store gets the same documents by `_bulk_docs` in the stored shape, with the
 * node's design docs in place and its warmer off, then the same first view reads go straight to
 * the store; each waits for its index to be built, as any CouchDB client's first query does.
 *   --docs N (FRESH_DOCS, default 100000)  --page N (FRESH_PAGE, default 100: doc_limit)
 *   --couchdb URL (BENCH_COUCHDB_URL): both nodes and the raw reads on that CouchDB 3.x
 */
import { startNodeProcess, createAccount, basicAuthHeader, report, round, secondsSince, loadBenchCorpus, benchOptions, prepareStore, rssOf, type NodeProcess } from './support.js';
import { generateDocument, loadTemplates } from './generate.js';

const options = benchOptions({ docs: 100000, docsEnv: 'FRESH_DOCS', page: 100, pageEnv: 'FRESH_PAGE' });
const store = await prepareStore(options.couchdb);
const TOTAL = options.docs;
const PAGE = options.page;
const BATCH = 1000;
const services = {
  obtain: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: PAGE } },
  slice: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: PAGE } },
  harvest: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE } },
  oai_pmh: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE } },
};
const templates = loadTemplates();
const schema = String((templates[0]?.payload_schema as string[] | undefined)?.[0] ?? 'nsdl_dc').toLowerCase();

/** The first page of each access service, as a harvester or a portal asks for it. */
const FIRST_PAGES: [string, string][] = [
  ['obtain', '/obtain'],
  ['slice', '/slice?any_tags=topic-7'],
  ['JSON harvest', '/harvest/listrecords'],
  ['OAI-PMH ListRecords', `/OAI-PMH?verb=ListRecords&metadataPrefix=${schema}`],
];

/** The same first reads, straight to the store (limit = one page, include_docs). */
const RAW_FIRST_READS: [string, string, string, Record<string, unknown>][] = [
  ['obtain', 'obtain', 'by_node_timestamp', { descending: true }],
  ['slice', 'slice', 'by_tag', { startkey: ['topic-7'], endkey: ['topic-7', {}] }],
  ['JSON harvest', 'harvest', 'by_node_timestamp', {}],
  ['OAI-PMH ListRecords', 'oai-pmh', 'by_schema', { startkey: [schema], endkey: [schema, {}] }],
];

/** Milliseconds until the page arrives, retrying 503s after their Retry-After. */
async function firstAnswer(url: string): Promise<{ ms: number; retries: number }> {
  const started = process.hrtime.bigint();
  let retries = 0;
  for (;;) {
    const response = await fetch(url);
    const text = await response.text();
    if (response.status === 200) return { ms: secondsSince(started) * 1000, retries };
    if (response.status !== 503) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`);
    retries += 1;
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
  }
}

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

async function publishAll(node: NodeProcess): Promise<number> {
  const { user, password } = await createAccount(node, 'bench', 'publisher');
  const auth = basicAuthHeader(user, password);
  const started = process.hrtime.bigint();
  for (let i = 0; i < TOTAL; i += BATCH) {
    const documents = Array.from({ length: Math.min(BATCH, TOTAL - i) }, (_, j) => generateDocument(i + j, templates, true));
    const response = await fetch(`${node.url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ documents }) });
    const body = await response.json() as { OK: boolean; error?: string };
    if (!body.OK) throw new Error(`publish failed: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return secondsSince(started);
}

let node = await startNodeProcess({ services }, store);
let slowest = 0;
try {
  process.stdout.write(`publishing ${TOTAL} documents in batches of ${BATCH} into a fresh node (index warming on)... `);
  let peakRss = rssOf(node.pid);
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssOf(node.pid)); }, 500);
  const seconds = await publishAll(node);
  process.stdout.write(`${round(TOTAL / seconds)} docs/s\n`);
  for (const [name, path] of FIRST_PAGES) {
    const { ms, retries } = await firstAnswer(`${node.url}${path}`);
    slowest = Math.max(slowest, ms);
    process.stdout.write(`first ${name} page: ${round(ms)} ms${retries ? ` (${retries} answers 503 before it)` : ''}\n`);
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

const raw = await startNodeProcess({ services }, store, { INDEX_WARMING: 'off' });
let rawSlowest = 0;
try {
  process.stdout.write(`raw: ${TOTAL} documents by _bulk_docs into a fresh store, then each first view read... `);
  await loadBenchCorpus(raw, TOTAL, 1000);
  process.stdout.write('\n');
  for (const [name, ddoc, view, range] of RAW_FIRST_READS) {
    const ms = await rawFirstRead(raw, ddoc, view, range);
    rawSlowest = Math.max(rawSlowest, ms);
    process.stdout.write(`raw first ${name} read: ${round(ms)} ms\n`);
  }
} finally {
  await raw.close();
}
report('fresh', slowest, rawSlowest, 'ms');
