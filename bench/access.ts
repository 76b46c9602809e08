/**
 * bench/access: Basic Obtain ALL (and slice when present) paging through a generated corpus,
 * versus a raw CouchDB view read with include_docs of the same rows, in the same run.
 *   BENCH_DOCS=100000 (default) BENCH_PAGE=1000
 * Prints documents/s for both, page 1 versus page 1,000 latency, and the closing line.
 */
import { startBenchNode, report, round } from './support.js';
import { generateDocument, loadTemplates } from './generate.js';
import { nodeTimestamp } from '../src/domain/timestamps.js';

const TOTAL = Number(process.env.BENCH_DOCS ?? 100000);
const PAGE = Number(process.env.BENCH_PAGE ?? 1000);
const LATENCY_PAGE = 100; // page size for the page-1 versus page-1,000 comparison

const node = await startBenchNode({ services: { obtain: { service_data: { flow_control: true, doc_limit: PAGE, id_limit: LATENCY_PAGE } } } });
const db = node.couch.use(node.names.resourceData);
try {
  const templates = loadTemplates();
  const start = Date.parse('2020-01-01T00:00:00Z');
  process.stdout.write(`loading ${TOTAL} documents... `);
  for (let i = 0; i < TOTAL; i += 1000) {
    const docs = [];
    for (let j = i; j < Math.min(i + 1000, TOTAL); j += 1) {
      const doc = generateDocument(j, templates, true);
      const stamp = nodeTimestamp(new Date(start + j * 1000));
      docs.push({ ...doc, _id: doc.doc_ID, publish_node: 'bench', publishing_node: 'bench', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp });
    }
    await db.bulk({ docs });
  }
  const indexStart = Date.now();
  await db.view('obtain', 'by_node_timestamp', { limit: 1 });
  process.stdout.write(`done; view built in ${round((Date.now() - indexStart) / 1000)} s\n`);

  // Ours: GET /obtain following resumption tokens.
  const oursStart = process.hrtime.bigint();
  let token: string | null | undefined;
  let oursCount = 0;
  do {
    const response = await fetch(`${node.url}/obtain${token ? `?resumption_token=${encodeURIComponent(token)}` : ''}`);
    const body = await response.json() as { documents: unknown[]; resumption_token?: string | null };
    oursCount += body.documents.length;
    token = body.resumption_token;
  } while (token);
  const oursSeconds = Number(process.hrtime.bigint() - oursStart) / 1e9;

  // Raw: the same view, newest first, same page size, keyset continuation, include_docs, over HTTP.
  const rawStart = process.hrtime.bigint();
  let rawCount = 0;
  let startkey: unknown;
  for (;;) {
    const result = await db.view('obtain', 'by_node_timestamp', { descending: true, include_docs: true, limit: PAGE + (startkey ? 1 : 0), ...(startkey ? { startkey } : {}) });
    const rows = startkey ? result.rows.slice(1) : result.rows;
    rawCount += rows.length;
    if (rows.length < PAGE) break;
    startkey = rows[rows.length - 1]?.key;
  }
  const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
  if (oursCount !== TOTAL || rawCount !== TOTAL) throw new Error(`counts differ: ours ${oursCount}, raw ${rawCount}, stored ${TOTAL}`);

  // Page 1 versus page 1,000 (pages of LATENCY_PAGE): keyset cursors make them cost the same.
  const latencyNode = `${node.url}/obtain?ids_only=T`;
  const timed = async (url: string): Promise<number> => {
    const t0 = process.hrtime.bigint();
    await (await fetch(url)).json();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  // Walk to page 1,000 (ids_only pages of LATENCY_PAGE; the deepest page when the corpus is
  // smaller), then time page 1 and that page.
  let deepToken: string | undefined;
  const target = Math.min(999, Math.floor(TOTAL / LATENCY_PAGE) - 1);
  {
    let t: string | null | undefined;
    let pages = 0;
    do {
      const body = await (await fetch(`${latencyNode}${t ? `&resumption_token=${encodeURIComponent(t)}` : ''}`)).json() as { resumption_token?: string | null };
      t = body.resumption_token;
      pages += 1;
      if (pages === target && t) deepToken = t;
    } while (t && !deepToken);
  }
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    first.push(await timed(latencyNode));
    if (deepToken) deep.push(await timed(`${latencyNode}&resumption_token=${encodeURIComponent(deepToken)}`));
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const ours = oursCount / oursSeconds;
  const raw = rawCount / rawSeconds;
  process.stdout.write(`obtain ALL: ${round(ours)} docs/s in ${round(oursSeconds)} s; raw view read: ${round(raw)} docs/s in ${round(rawSeconds)} s\n`);
  process.stdout.write(`latency (ids_only pages of ${LATENCY_PAGE}): page 1 ${round(median(first))} ms, page ${target + 1} ${round(median(deep))} ms, ratio ${round(median(deep) / median(first), 2)}\n`);
  report('access', ours, raw, 'docs/s');
} finally {
  await node.close();
}
