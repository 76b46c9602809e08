/**
 * bench/access: Basic Obtain ALL and slice paging through a generated corpus, each versus a raw
 * CouchDB view read with include_docs of the same rows (same page size, keyset continuation), in
 * the same run; then page 1 versus page 1,000 latency of obtain.
 *   --docs N (BENCH_DOCS, default 100000)  --page N (BENCH_PAGE, default 1000)
 *   --couchdb URL (BENCH_COUCHDB_URL): the node and the raw view reads on that CouchDB 3.x
 */
import { startNodeProcess, report, round, loadBenchCorpus, followTokens, rawViewPages, buildViews, benchOptions, prepareStore } from './support.js';
import { codeUnitKey } from '../src/storage/view-keys.js';

const options = benchOptions({ docs: 100000, docsEnv: 'BENCH_DOCS', page: 1000, pageEnv: 'BENCH_PAGE' });
const store = await prepareStore(options.couchdb);
const TOTAL = options.docs;
const PAGE = options.page;
const LATENCY_PAGE = 100; // obtain id_limit: ids_only pages for the page-1 versus page-1,000 comparison

// The node runs as its own process, so this client does not share its event loop.
const node = await startNodeProcess({ services: {
  obtain: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: LATENCY_PAGE } },
  slice: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: PAGE } },
} }, store);
try {
  process.stdout.write(`loading ${TOTAL} documents... `);
  await loadBenchCorpus(node, TOTAL, 60000);
  const indexStart = Date.now();
  await buildViews(node);
  process.stdout.write(`done; views built in ${round((Date.now() - indexStart) / 1000)} s\n`);

  const obtain = await followTokens((token) => `${node.url}/obtain${token ? `?resumption_token=${encodeURIComponent(token)}` : ''}`);
  const obtainRaw = await rawViewPages(node, 'harvest', 'by_node_timestamp', PAGE, { descending: true });
  if (obtain.count !== TOTAL || obtainRaw.count !== TOTAL) throw new Error(`obtain counts differ: ours ${obtain.count}, raw ${obtainRaw.count}, stored ${TOTAL}`);
  process.stdout.write(`obtain ALL: ${round(obtain.count / obtain.seconds)} docs/s; raw view read ${round(obtainRaw.count / obtainRaw.seconds)} docs/s\n`);

  // Slice by identity: "NSDL" submits one document in eight.
  const slice = await followTokens((token) => `${node.url}/slice?identity=nsdl${token ? `&resumption_token=${encodeURIComponent(token)}` : ''}`);
  const sliceRaw = await rawViewPages(node, 'slice', 'by_identity', PAGE, { startkey: [codeUnitKey('nsdl')], endkey: [codeUnitKey('nsdl'), {}] });
  if (slice.count !== sliceRaw.count) throw new Error(`slice counts differ: ours ${slice.count}, raw ${sliceRaw.count}`);
  process.stdout.write(`slice by identity: ${round(slice.count / slice.seconds)} docs/s; raw view read ${round(sliceRaw.count / sliceRaw.seconds)} docs/s\n`);

  // Page 1 versus page 1,000 (or the deepest page of a smaller corpus).
  const ids = `${node.url}/obtain?ids_only=T`;
  const target = Math.min(999, Math.floor(TOTAL / LATENCY_PAGE) - 1);
  let token: string | null | undefined;
  for (let pages = 0; pages < target; pages += 1) {
    token = ((await (await fetch(`${ids}${token ? `&resumption_token=${encodeURIComponent(token)}` : ''}`)).json()) as { resumption_token?: string | null }).resumption_token;
    if (!token) break;
  }
  const deepToken = token ?? undefined;
  const timed = async (url: string): Promise<number> => {
    const t0 = process.hrtime.bigint();
    await (await fetch(url)).json();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < 7; i += 1) {
    first.push(await timed(ids));
    if (deepToken) deep.push(await timed(`${ids}&resumption_token=${encodeURIComponent(deepToken)}`));
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  process.stdout.write(`latency (ids_only pages of ${LATENCY_PAGE}): page 1 ${round(median(first))} ms, page ${target + 1} ${round(median(deep))} ms, ratio ${round(median(deep) / median(first), 2)}\n`);
  report('access', (obtain.count + slice.count) / (obtain.seconds + slice.seconds), (obtainRaw.count + sliceRaw.count) / (obtainRaw.seconds + sliceRaw.seconds), 'docs/s');
} finally {
  await node.close();
}
