/**
 * bench/load (issue 14): mixed traffic on loopback with autocannon — obtain by doc_ID, slice by
 * tag, JSON harvest and OAI-PMH pages from a random date, publish batches of 10 — all kinds at
 * once, the connections shared among them; then the equivalent raw reads and writes sent straight
 * to the store at the same concurrency. Per kind: throughput, p50/p99 and errors; node and store
 * peak RSS; one closing line per concurrency whose ratio is node reads/s over the store's.
 *   BENCH_DOCS=100000 BENCH_DURATION=60 BENCH_CONNECTIONS=16,64 BENCH_PAGE=100 (all configurable,
 *   so the bench also runs at smaller sizes; --docs and --page as well); BENCH_KINDS=obtain,slice
 *   runs only the kinds named (with BENCH_NODE_FLAGS='--cpu-prof ...', a profile per kind)
 *   --couchdb URL (BENCH_COUCHDB_URL): the node and the raw requests on that CouchDB 3.x; the
 *   store's RSS is reported when BENCH_COUCHDB_PID names its VM (beam.smp) process.
 */
import autocannon from 'autocannon';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startNodeProcess, loadBenchCorpus, report, round, rssOf, benchOptions, prepareStore, buildViews, storeEndpoint } from './support.js';
import { benchDocId, generateDocument, loadTemplates } from './generate.js';
import { codeUnitKey } from '../src/storage/view-keys.js';

const options = benchOptions({ docs: 100000, docsEnv: 'BENCH_DOCS', page: 100, pageEnv: 'BENCH_PAGE' });
const couchdb = await prepareStore(options.couchdb);
const TOTAL = options.docs;
const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64').split(',').map(Number);
const PAGE = options.page;
const STEP_MS = 60000;
const START = Date.parse('2020-01-01T00:00:00Z');

type Kind = 'obtain' | 'slice' | 'harvest' | 'oai-pmh' | 'publish';
const ALL_KINDS: Kind[] = ['obtain', 'slice', 'harvest', 'oai-pmh', 'publish'];
/** BENCH_KINDS (e.g. `obtain` or `slice,publish`) runs only those kinds: one kind at a time for a profile of each. */
const KINDS: Kind[] = process.env.BENCH_KINDS ? process.env.BENCH_KINDS.split(',').map((kind) => {
  if (!ALL_KINDS.includes(kind as Kind)) throw new Error(`BENCH_KINDS: unknown kind ${kind} (one of ${ALL_KINDS.join(', ')})`);
  return kind as Kind;
}) : ALL_KINDS;
/** `connections`: this kind's share; a closed loop, so its mean latency is connections / rps (Little's law). */
interface Measured { kind: Kind; connections: number; requests: number; rps: number; p50: number; p99: number; errors: number; detail: string }

const randomInt = (n: number): number => Math.floor(Math.random() * n);
const randomDay = (): string => new Date(START + randomInt(TOTAL) * STEP_MS).toISOString().slice(0, 10);
const randomStamp = (): string => new Date(START + randomInt(TOTAL) * STEP_MS).toISOString();

const node = await startNodeProcess({
  services: {
    publish: { service_auth: { service_authz: ['none'] } },
    slice: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: PAGE } },
    harvest: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE } },
    oai_pmh: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE } },
  },
}, couchdb, { MONITORING_PORT: '0' });

type Families = ReturnType<typeof parsePrometheusTextFormat> & { text?: string };

/** The node's /metrics as parsed families, and its text (none when the node has no monitoring port). */
async function nodeMetrics(): Promise<Families> {
  if (!node.monitoringUrl) return [];
  const text = await (await fetch(`${node.monitoringUrl}/metrics`)).text();
  return Object.assign(parsePrometheusTextFormat(text), { text });
}

const samplesOf = (families: Families, name: string): { labels?: Record<string, string>; value?: string }[] =>
  (families.find((family) => family.name === name)?.metrics ?? []) as never;

/** How the node answered its range reads during writes so far (src/storage/current-reads.ts). */
function rangeReadAnswers(families: Families): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of samplesOf(families, 'lr_range_reads_during_writes_total')) {
    const { answer = '', because = '' } = sample.labels ?? {};
    counts[because ? `${answer} (${because})` : answer] = Number(sample.value ?? 0);
  }
  return counts;
}

/**
 * Time in the handler (ms) and requests so far, by route: with the client's latency, where a
 * request waited. Read from the text: the parser drops a histogram's labels, sum and count.
 */
function handlerTimes(families: Families): Record<string, { sum: number; count: number }> {
  const times: Record<string, { sum: number; count: number }> = {};
  for (const [, part, labels, value] of (families.text ?? '').matchAll(/^lr_http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
    const route = /route="([^"]*)"/.exec(labels as string)?.[1] ?? '';
    const entry = (times[route] ??= { sum: 0, count: 0 });
    if (part === 'sum') entry.sum += Number(value) * 1000; else entry.count += Number(value);
  }
  return times;
}

/** The event loop's delay since the previous scrape (prom-client resets it at each): p50, p99 and max in ms. */
function loopDelay(families: Families): string {
  const ms = (name: string): number => round(Number(samplesOf(families, name)[0]?.value ?? NaN) * 1000);
  return `event loop delay p50 ${ms('nodejs_eventloop_lag_p50_seconds')} ms, p99 ${ms('nodejs_eventloop_lag_p99_seconds')} ms, max ${ms('nodejs_eventloop_lag_max_seconds')} ms`;
}

const { url: storeUrl, auth: storeAuth, pid: storeProcess } = storeEndpoint(node, couchdb);
const RESOURCE_DATA = `/${node.names.resourceData}`;
const templates = loadTemplates();
let published = TOTAL;
const publishBody = (): string => JSON.stringify({ documents: Array.from({ length: 10 }, () => { const i = (published += 1); return generateDocument(i, templates, true); }) });
const rawBulkBody = (): string => JSON.stringify({ docs: Array.from({ length: 10 }, () => { const doc = generateDocument((published += 1), templates, true); return { ...doc, _id: doc.doc_ID, doc_type: 'resource_data', node_timestamp: new Date().toISOString() }; }) });
const viewBody = (startkey: unknown, endkey: unknown): string => JSON.stringify({ startkey, endkey, limit: PAGE + 1, include_docs: true });
const schema = String((templates[0]?.payload_schema as string[] | undefined)?.[0] ?? 'nsdl_dc').toLowerCase();

/** One request of each kind, against the node or the store (its equivalent raw read or write). */
function requestFor(kind: Kind, target: 'node' | 'store'): () => { method: string; path: string; headers?: Record<string, string>; body?: string } {
  const json = { 'content-type': 'application/json' };
  const store = { ...json, authorization: storeAuth };
  const view = (ddoc: string, name: string): string => `${RESOURCE_DATA}/_design/${ddoc}/_view/${name}`;
  switch (kind) {
    case 'obtain': return target === 'node'
      ? () => ({ method: 'GET', path: `/obtain?request_ID=${benchDocId(randomInt(TOTAL))}&by_doc_ID=T` })
      : () => ({ method: 'GET', path: `${RESOURCE_DATA}/${benchDocId(randomInt(TOTAL))}`, headers: store });
    case 'slice': return target === 'node'
      ? () => ({ method: 'GET', path: `/slice?any_tags=topic-${randomInt(500)}&from=${randomDay()}` })
      : () => { const tag = codeUnitKey(`topic-${randomInt(500)}`); return { method: 'POST', path: view('slice', 'by_tag'), headers: store, body: viewBody([tag, randomDay()], [tag, {}]) }; };
    case 'harvest': return target === 'node'
      ? () => ({ method: 'GET', path: `/harvest/listrecords?from=${randomStamp().slice(0, 19)}Z` })
      : () => ({ method: 'POST', path: view('harvest', 'by_node_timestamp'), headers: store, body: viewBody([randomStamp()], [{}]) });
    case 'oai-pmh': return target === 'node'
      ? () => ({ method: 'GET', path: `/OAI-PMH?verb=ListRecords&metadataPrefix=${schema}&from=${randomStamp().slice(0, 19)}Z` })
      : () => ({ method: 'POST', path: view('oai-pmh', 'by_schema'), headers: store, body: viewBody([codeUnitKey(schema), randomStamp()], [codeUnitKey(schema), {}]) });
    case 'publish': return target === 'node'
      ? () => ({ method: 'POST', path: '/publish', headers: json, body: publishBody() })
      : () => ({ method: 'POST', path: `${RESOURCE_DATA}/_bulk_docs`, headers: store, body: rawBulkBody() });
  }
}

/** All kinds at once for DURATION seconds, `connections` shared among them; peak RSS sampled meanwhile. */
async function mixed(target: 'node' | 'store', connections: number): Promise<{ results: Measured[]; peak: { node: number; store: number } }> {
  const peak = { node: 0, store: 0 };
  const sampler = setInterval(() => {
    peak.node = Math.max(peak.node, rssOf(node.pid));
    const pid = storeProcess();
    if (pid) peak.store = Math.max(peak.store, rssOf(pid));
  }, 250);
  const perKind = Math.max(1, Math.floor(connections / KINDS.length));
  const results = await Promise.all(KINDS.map(async (kind) => {
    const next = requestFor(kind, target);
    const share = kind === KINDS[0] ? connections - perKind * (KINDS.length - 1) : perKind;
    const result = await autocannon({
      url: target === 'node' ? node.url : storeUrl, connections: share, duration: DURATION,
      requests: [{ setupRequest: (request) => ({ ...request, ...next() }) as typeof request }],
    });
    // autocannon counts a timeout (no answer in 10 s) among its errors as well: added once.
    const errors = result.errors + result.non2xx;
    // What the errors were: the timeouts, other connection errors, and the answers by status.
    const statuses = Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2')).map(([code, stat]) => `${code}: ${stat.count}`);
    const detail = errors === 0 ? '' : ` (timeouts ${result.timeouts}, connection errors ${result.errors - result.timeouts}${statuses.length ? `, ${statuses.join(', ')}` : ''})`;
    return { kind, connections: share, requests: result.requests.total, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, detail };
  }));
  clearInterval(sampler);
  return { results, peak };
}

/** Brings every view up to date: each run measures serving, not a catch-up left by the previous one. */
const refreshViews = (): Promise<void> => buildViews(node);

const mb = (bytes: number): number => round(bytes / 2 ** 20);
/** The closing line counts the reads, or the publish batches when BENCH_KINDS names only `publish`. */
const READS_ONLY = KINDS.some((kind) => kind !== 'publish');
const readRps = (results: Measured[]): number => results.filter((r) => (r.kind !== 'publish') === READS_ONLY).reduce((sum, r) => sum + r.rps, 0);
try {
  process.stdout.write(`loading ${TOTAL} documents... `);
  await loadBenchCorpus(node, TOTAL, STEP_MS);
  const built = Date.now();
  await refreshViews();
  process.stdout.write(`done; views built in ${round((Date.now() - built) / 1000)} s; ${DURATION} s per run, pages of ${PAGE}\n`);
  for (const connections of CONNECTIONS) {
    for (const target of ['node', 'store'] as const) {
      await refreshViews(); // what the previous run published is indexed before this one starts
      const before = await nodeMetrics();
      const { results, peak } = await mixed(target, connections);
      const after = await nodeMetrics();
      const answersBefore = rangeReadAnswers(before);
      const answers = Object.entries(rangeReadAnswers(after)).map(([answer, count]) => `${answer} ${count - (answersBefore[answer] ?? 0)}`).join(', ');
      process.stdout.write(`${target}, ${connections} connections: peak RSS node ${mb(peak.node)} MB, store ${mb(peak.store)} MB${target === 'node' && answers ? `; range reads during writes: ${answers}` : ''}\n`);
      if (target === 'node' && after.length > 0) {
        const handled = handlerTimes(before);
        const inHandler = Object.entries(handlerTimes(after)).map(([route, { sum, count }]) => ({ route, sum: sum - (handled[route]?.sum ?? 0), count: count - (handled[route]?.count ?? 0) }))
          .filter(({ count }) => count > 0).map(({ route, sum, count }) => `${route} ${round(sum / count)}`).join(', ');
        process.stdout.write(`  node: ${loopDelay(after)}; mean time in the handler (ms): ${inHandler}\n`);
      }
      for (const r of results) process.stdout.write(`  ${r.kind.padEnd(8)} ${String(round(r.rps)).padStart(8)} req/s  p50 ${String(r.p50).padStart(6)} ms  p99 ${String(r.p99).padStart(6)} ms  errors ${r.errors}${r.detail}  (${r.requests} requests on ${r.connections} connections)\n`);
      if (target === 'node') (globalThis as { nodeReads?: number }).nodeReads = readRps(results);
      else report(`load ${connections} connections (${READS_ONLY ? 'reads' : 'publish'})`, (globalThis as { nodeReads?: number }).nodeReads ?? 0, readRps(results), 'req/s');
    }
  }
} finally {
  await node.close();
}
