/**
 * bench/floor: how close any Node.js front can come to the store's own throughput on this
 * machine, so that a ratio goal can be read against what is possible. Obtain by doc_ID (the
 * cheapest read there is, a document GET behind it) at N connections with autocannon, for 15 s each:
 *   raw      GET /{db}/{id} straight to the store (before and after the others; the mean counts);
 *   undici   a minimal Node front with undici's `request` (bench/lib/minimal-front.ts);
 *   fetch    the same front with the global `fetch`, the transport nano uses for every store request;
 *   node     the node's own `/obtain?request_ID=…&by_doc_ID=T`.
 * Per run: requests/s, p50/p99, the CPU each process spent per request (the front's or the node's,
 * and the store's when known: the embedded store always, CouchDB with BENCH_COUCHDB_PID), and how
 * busy the whole machine was (/proc/stat). When the machine is saturated, a front's CPU per
 * request comes out of the store's, which is why no front reaches the raw rate here.
 *   --docs N (BENCH_DOCS, default 10000)  BENCH_CONNECTIONS (default 64)  BENCH_DURATION (default 15)
 *   --couchdb URL (BENCH_COUCHDB_URL)
 */
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { benchOptions, loadBenchCorpus, prepareStore, report, round, startNodeProcess, storeEndpoint } from './support.js';
import { cpuSeconds } from './lib/cpu.js';
import { startFront } from './lib/front-process.js';
import { benchDocId } from './generate.js';

const options = benchOptions({ docs: 10000, docsEnv: 'BENCH_DOCS' });
const couchdb = await prepareStore(options.couchdb);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const randomId = (): string => benchDocId(Math.floor(Math.random() * options.docs));

/** The machine's busy and total CPU time so far, from /proc/stat's first line. */
function machineTicks(): { busy: number; total: number } {
  const values = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total }; // idle and iowait are not busy
}

interface Run { name: string; rps: number; p50: number; p99: number; errors: number; frontCpuUs: number | undefined; storeCpuUs: number | undefined; machineBusy: number }

async function run(name: string, url: string, request: () => { path: string; headers?: Record<string, string> }, frontPid: number | undefined, storePid: number | undefined): Promise<Run> {
  const before = { front: cpuSeconds(frontPid), store: cpuSeconds(storePid), machine: machineTicks() };
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests: [{ setupRequest: (r) => ({ ...r, method: 'GET', ...request() }) as typeof r }] });
  const machine = machineTicks();
  const perRequestUs = (pid: number | undefined, start: number): number | undefined => (pid ? ((cpuSeconds(pid) - start) / result.requests.total) * 1e6 : undefined);
  return {
    name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx,
    frontCpuUs: perRequestUs(frontPid, before.front), storeCpuUs: perRequestUs(storePid, before.store),
    machineBusy: (machine.busy - before.machine.busy) / Math.max(1, machine.total - before.machine.total),
  };
}

const node = await startNodeProcess({}, couchdb);
const fronts: ChildProcess[] = [];
try {
  process.stdout.write(`loading ${options.docs} documents... `);
  await loadBenchCorpus(node, options.docs);
  process.stdout.write(`done; ${CONNECTIONS} connections, ${DURATION} s per run\n`);
  const store = storeEndpoint(node, couchdb);
  const db = node.names.resourceData;
  const raw = (): { path: string; headers: Record<string, string> } => ({ path: `/${db}/${randomId()}`, headers: { authorization: store.auth } });
  const obtain = (): { path: string } => ({ path: `/obtain?request_ID=${randomId()}&by_doc_ID=T` });
  const runs: Run[] = [await run('raw', store.url, raw, undefined, store.pid())];
  for (const transport of ['undici', 'fetch'] as const) {
    const front = await startFront({ store: store.url, auth: store.auth, db, transport, connections: CONNECTIONS });
    fronts.push(front.child);
    runs.push(await run(`front (${transport})`, front.url, obtain, front.child.pid, store.pid()));
    front.child.kill('SIGTERM');
  }
  runs.push(await run('node /obtain', node.url, obtain, node.pid, store.pid()));
  runs.push(await run('raw again', store.url, raw, undefined, store.pid()));
  const rawRps = ((runs[0]?.rps ?? 0) + (runs[runs.length - 1]?.rps ?? 0)) / 2;
  for (const r of runs) {
    const cpu = [r.frontCpuUs === undefined ? '' : `front ${Math.round(r.frontCpuUs)} µs`, r.storeCpuUs === undefined ? '' : `store ${Math.round(r.storeCpuUs)} µs`].filter(Boolean).join(', ');
    process.stdout.write(`  ${r.name.padEnd(15)} ${String(round(r.rps)).padStart(8)} req/s (${round(r.rps / rawRps, 2).toFixed(2)} of raw)  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  machine ${Math.round(r.machineBusy * 100)}% busy${cpu ? `; CPU per request: ${cpu}` : ''}\n`);
  }
  const nodeRun = runs.find((r) => r.name === 'node /obtain');
  report(`floor (obtain by doc_ID, ${CONNECTIONS} connections)`, nodeRun?.rps ?? 0, rawRps, 'req/s');
} finally {
  for (const child of fronts) if (child.exitCode === null) child.kill('SIGTERM');
  await node.close();
}
