/**
 * bench/publish: documents per second through POST /publish (batches of 100 and 1000 realistic,
 * unsigned documents, default policy, Basic credentials) versus raw _bulk_docs of the same
 * documents in the same stored shape on the same server, in the same run; then the rate with
 * signature verification on (documents signed by one key, fetched from a loopback key server),
 * and the rate of proxy-signed publishing (unsigned documents under the account's own submitter
 * name, which the node signs with its key: the default `proxy_sign` path).
 *   --docs N (BENCH_DOCS, default 20000) documents per measurement (signed: at most 5,000)
 *   --couchdb URL (BENCH_COUCHDB_URL): the node and the raw _bulk_docs on that CouchDB 3.x
 * Beside each comparison, the CPU each process spent per batch (the store's for CouchDB when
 * BENCH_COUCHDB_PID names its beam.smp): one client sends one batch after another, so the
 * node's CPU per batch lies before the store's write of it in each batch's time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startNodeProcess, basicAuthHeader, report, round, benchOptions, prepareStore, createAccount, storePid, type NodeProcess } from './support.js';
import { cpuMeter } from './lib/cpu.js';
import { generateDocument, loadTemplates } from './generate.js';
import { nodeTimestamp } from '../src/domain/timestamps.js';
import { generateNodeKeyPair } from '../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../src/domain/signature/lr-pgp-sign.js';

const options = benchOptions({ docs: 20000, docsEnv: 'BENCH_DOCS' });
const store = await prepareStore(options.couchdb);
const TOTAL = options.docs;
const templates = loadTemplates();
type Doc = Record<string, unknown>;

async function withAccount(node: NodeProcess): Promise<string> {
  const { user, password } = await createAccount(node, 'bench', 'publisher');
  return basicAuthHeader(user, password);
}

async function publishAll(url: string, auth: string, docs: Doc[], batch: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < docs.length; i += batch) {
    const response = await fetch(`${url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ documents: docs.slice(i, i + batch) }) });
    const body = await response.json() as { OK: boolean; document_results: { OK: boolean; error?: string }[] };
    const failed = body.document_results?.find((r) => !r.OK);
    if (!body.OK || failed) throw new Error(`publish failed: ${JSON.stringify(failed ?? body).slice(0, 300)}`);
  }
  return docs.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function rawBulk(node: NodeProcess, docs: Doc[], batch: number): Promise<number> {
  const db = node.couch.use(node.names.resourceData);
  const started = process.hrtime.bigint();
  for (let i = 0; i < docs.length; i += batch) {
    const stamp = nodeTimestamp(new Date());
    await db.bulk({ docs: docs.slice(i, i + batch).map((doc) => ({ ...doc, _id: doc.doc_ID, publish_node: 'raw', publishing_node: 'raw', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp })) });
  }
  return docs.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

const corpus = (offset: number): Doc[] => Array.from({ length: TOTAL }, (_, i) => generateDocument(offset + i, templates, true));

const results: Record<string, { ours: number; raw: number }> = {};
// The node runs as its own process, so this client does not share its event loop. Index warming
// is off for the comparisons: the raw _bulk_docs builds no index, and the warmer would otherwise
// index one run's documents during the next (a line below shows publishing with warming on).
const WARMING_OFF = { INDEX_WARMING: 'off' };
const node = await startNodeProcess({}, store, WARMING_OFF);
try {
  const auth = await withAccount(node);
  let offset = 0;
  const storeProcess = storePid(node);
  for (const batch of [100, 1000]) {
    const batches = TOTAL / batch;
    // The documents are generated before each meter starts: the client's CPU is its sending only.
    const rawDocs = corpus(offset);
    const rawMeter = cpuMeter({ store: storeProcess, client: process.pid });
    const raw = await rawBulk(node, rawDocs, batch);
    const rawCpu = rawMeter.per(batches, 'batch');
    offset += TOTAL;
    const ourDocs = corpus(offset);
    const oursMeter = cpuMeter({ store: storeProcess, node: node.pid, client: process.pid });
    const ours = await publishAll(node.url, auth, ourDocs, batch);
    const oursCpu = oursMeter.per(batches, 'batch');
    offset += TOTAL;
    results[batch] = { ours, raw };
    process.stdout.write(`batches of ${batch}: publish ${round(ours)} docs/s, raw _bulk_docs ${round(raw)} docs/s, ratio ${round(ours / raw, 2)}\n`);
    process.stdout.write(`  ${oursCpu}, ${round(batch / ours * 1000)} ms a batch; raw: ${rawCpu}, ${round(batch / raw * 1000)} ms a batch\n`);
  }
  // Proxy signing (default policy): unsigned documents whose submitter is the account's own name.
  const count = Math.min(TOTAL, 5000);
  const own = corpus(offset).slice(0, count).map((doc) => ({ ...doc, identity: { ...(doc.identity as Doc), submitter: 'bench' } }));
  const rate = await publishAll(node.url, auth, own, 1000);
  process.stdout.write(`with proxy signing (batches of 1000, ${count} documents signed by the node): ${round(rate)} docs/s\n`);
} finally {
  await node.close();
}

// Signature verification on: documents signed by one key, whose public key a loopback server serves.
const keys = await generateNodeKeyPair('bench signer', 'bench@example.org');
const keyServer = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(keys.publicKeyArmored); });
await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
const keyUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/key`;
const verifying = await startNodeProcess({ policy: { verify_signatures: true, allow_private_fetch: true } }, store, WARMING_OFF);
try {
  const auth = await withAccount(verifying);
  const count = Math.min(TOTAL, 5000);
  // The first 1,000 go to the node just started (its code not yet optimised by V8, the signer's
  // key not yet fetched), as the other lines' node had published before they were measured;
  // their rate is printed too.
  const COLD = 1000;
  const signed: Doc[] = [];
  for (let i = 0; i < COLD + count; i += 1) signed.push(await signEnvelope(generateDocument(10_000_000 + i, templates, true), keys.privateKeyArmored, undefined, [keyUrl]));
  const cold = await publishAll(verifying.url, auth, signed.slice(0, COLD), 100);
  const rate = await publishAll(verifying.url, auth, signed.slice(COLD), 100);
  process.stdout.write(`with signature verification (batches of 100, ${count} signed documents): ${round(rate)} docs/s (the first ${COLD}, on the node just started: ${round(cold)} docs/s)\n`);
} finally {
  await verifying.close();
  keyServer.close();
}

// What a user meets on a node with its defaults: the store indexes what arrives while it arrives.
// The node first publishes what the comparisons' node had published before its batches of 1,000
// (as many documents in batches of 100), so this line differs from that one by the warming only.
// Measured on the node just started, it also showed the process's cold start: 1,512 and 1,633
// docs/s against 2,085 and 2,420 after the warm-up (embedded store, 5,000 documents, 2026-12-06).
const warming = await startNodeProcess({}, store);
try {
  const auth = await withAccount(warming);
  const cold = await publishAll(warming.url, auth, corpus(30_000_000), 100);
  const rate = await publishAll(warming.url, auth, corpus(20_000_000), 1000);
  process.stdout.write(`with index warming on (the default; batches of 1000, ${TOTAL} documents): ${round(rate)} docs/s (before them, on the node just started, batches of 100: ${round(cold)} docs/s)\n`);
} finally {
  await warming.close();
}

const main = results[1000] as { ours: number; raw: number };
report('publish', main.ours, main.raw, 'docs/s');
