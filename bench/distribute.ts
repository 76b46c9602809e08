/**
 * npm run bench -- distribute: N documents (BENCH_DISTRIBUTE_DOCS, default 20000) published at
 * node A; time from one POST /distribute until all are stored (obtainable) at node B, versus a
 * raw CouchDB one-shot replication of the same documents between the same two stores in the
 * same run (no filter, no node in between). Goal: at least 0.5 of raw.
 */
import { startNetwork, stopNetwork } from '../scripts/network.js';
import { generateDocument, loadTemplates } from './generate.js';
import { basicAuthHeader, report, round } from './support.js';

const COUNT = Number(process.env.BENCH_DISTRIBUTE_DOCS ?? 20000);
const nodes = await startNetwork({ nodes: 2, topology: 'chain', basePort: 0 });
const [a, b] = nodes as [typeof nodes[0], typeof nodes[0]];

async function liveCount(db: string): Promise<number> {
  const store = b.node.couch.use(db);
  const [info, design] = await Promise.all([store.info(), store.list({ startkey: '_design/', endkey: '_design0' })]);
  return info.doc_count - design.rows.length;
}

try {
  const templates = loadTemplates();
  for (let start = 0; start < COUNT; start += 1000) {
    const documents = Array.from({ length: Math.min(1000, COUNT - start) }, (_, k) => generateDocument(start + k, templates, true));
    const response = await fetch(`${a.node.url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basicAuthHeader(a.publisher.user, a.publisher.password) }, body: JSON.stringify({ documents }) });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${await response.text()}`);
  }
  process.stderr.write(`published ${COUNT} documents at A\n`);

  // Ours: one /distribute, until B holds every document in resource_data (incoming processed).
  const started = performance.now();
  const answer = await fetch(`${a.node.url}/distribute`, { method: 'POST', headers: { authorization: basicAuthHeader(a.admin.user, a.admin.password) } });
  if (answer.status !== 200) throw new Error(`distribute failed: ${answer.status} ${await answer.text()}`);
  const replicated = performance.now();
  while ((await liveCount(b.node.names.resourceData)) < COUNT) await new Promise((resolve) => setTimeout(resolve, 50));
  const ours = COUNT / ((performance.now() - started) / 1000);
  process.stderr.write(`distribute: replication ${round((replicated - started) / 1000, 2)} s, all stored at B ${round((performance.now() - started) / 1000, 2)} s\n`);

  // Raw: the same documents, A's store → a fresh database on B's store, one-shot /_replicate.
  await b.node.couch.db.create('raw_bench');
  const target = `${b.node.couch.config.url.replace(/\/+$/, '')}/raw_bench`;
  const rawStarted = performance.now();
  await a.node.couch.request({ method: 'POST', path: '_replicate', body: { source: a.node.names.resourceData, target } });
  const rawCount = await liveCount('raw_bench');
  const raw = rawCount / ((performance.now() - rawStarted) / 1000);
  process.stderr.write(`raw: ${rawCount} documents in ${round((performance.now() - rawStarted) / 1000, 2)} s\n`);
  report('distribute', ours, raw, 'docs/s');
} finally {
  await stopNetwork(nodes);
}
