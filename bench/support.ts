/** Shared benchmark plumbing: a real node on a fresh store (embedded, or a CouchDB 3.x given by URL), and the closing line. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunningNode } from '../src/runtime.js';
import { AccountRepository, type AccountRole } from '../src/storage/account-repository.js';
import { hashPassword } from '../src/domain/password.js';
import { connectCouch, redactedUrl } from '../src/storage/couch.js';
import { databaseNames } from '../src/storage/databases.js';
import { loadDesignDocs } from '../src/storage/design-docs.js';
import { EXIT } from '../src/errors/exit-codes.js';
import { basicAuthorization } from '../src/net/basic-authorization.js';
import type { PageTime } from './lib/pages.js';

/** The node's own header builder (net/basic-authorization.ts), under the name the benchmarks use. */
export const basicAuthHeader = basicAuthorization;

/** An account on the node's store (as `npm run account` makes one); returns its Basic credentials. */
export async function createAccount(node: Pick<NodeProcess, 'couch' | 'names'>, name: string, role: AccountRole): Promise<{ user: string; password: string }> {
  const now = new Date().toISOString();
  const password = randomBytes(12).toString('base64url');
  await new AccountRepository(node.couch, node.names).create({ name, roles: [role], submitter: name, disabled: false, password: await hashPassword(password), created: now, updated: now });
  return { user: name, password };
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The one closing line every benchmark prints: NAME: <ours> <unit>, raw <raw> <unit>, ratio <ours/raw>. */
export function report(name: string, ours: number, raw: number, unit: string): void {
  process.stdout.write(`${name}: ${round(ours)} ${unit}, raw ${round(raw)} ${unit}, ratio ${round(ours / raw, 2)}\n`);
}

/** Writes `total` generated documents in the stored shape (as publish stores them) with raw _bulk_docs. */
export async function loadBenchCorpus(node: Pick<RunningNode, 'couch' | 'names'>, total: number, stepMs = 1000, shape: (doc: Record<string, unknown>, i: number) => Record<string, unknown> = (doc) => doc): Promise<void> {
  const { generateDocument, loadTemplates } = await import('./generate.js');
  const { nodeTimestamp } = await import('../src/domain/timestamps.js');
  // As publish stores them: with the record of its check of inline XML (BENCH_XML_RECORD=off: as
  // inbound distribution or a version before it stores them, checked at every OAI-PMH emission).
  const { inlineXmlCheck } = await import('../src/services/intake/inline-xml.js');
  const { XML_CHECK_FIELD } = await import('../src/domain/node-private-fields.js');
  const recorded = process.env.BENCH_XML_RECORD !== 'off';
  const withRecord = (doc: Record<string, unknown>): Record<string, unknown> => {
    const check = recorded ? inlineXmlCheck(doc) : {};
    return 'record' in check && check.record ? { ...doc, [XML_CHECK_FIELD]: check.record } : doc;
  };
  const templates = loadTemplates();
  const start = Date.parse('2020-01-01T00:00:00Z');
  const db = node.couch.use(node.names.resourceData);
  for (let i = 0; i < total; i += 1000) {
    const docs = [];
    for (let j = i; j < Math.min(i + 1000, total); j += 1) {
      const doc = generateDocument(j, templates, true);
      const stamp = nodeTimestamp(new Date(start + j * stepMs));
      docs.push({ ...withRecord(shape(doc, j)), _id: doc.doc_ID, publish_node: 'bench', publishing_node: 'bench', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp });
    }
    await db.bulk({ docs });
  }
}

/** Every view of resource_data, as design-docs/ defines them. */
export function allResourceViews(): [string, string][] {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'design-docs');
  return loadDesignDocs(root).filter((file) => file.db === 'resource_data')
    .flatMap((file) => Object.keys(file.doc.views ?? {}).map((view): [string, string] => [file.doc._id.replace(/^_design\//, ''), view]));
}

/**
 * Builds views before timing (one row each): by default every view of resource_data, so the
 * node's index warmer has nothing left to do while a benchmark is timed. CouchDB answers a query
 * that waits for an index longer than its request timeout with `timeout` while the build goes
 * on: ask again until it is done.
 */
export async function buildViews(node: Pick<RunningNode, 'couch' | 'names'>, views: [string, string][] = allResourceViews()): Promise<void> {
  const db = node.couch.use(node.names.resourceData);
  for (const [ddoc, view] of views) {
    for (;;) {
      try {
        await db.view(ddoc, view, { limit: 1 });
        break;
      } catch (error) {
        if ((error as { error?: string }).error !== 'timeout') throw error;
      }
    }
  }
}

export const secondsSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

/** Follows resumption tokens from `first` until the last page; returns the entries seen and the time. */
export async function followTokens(url: (token: string | undefined) => string): Promise<{ count: number; seconds: number }> {
  const started = process.hrtime.bigint();
  let count = 0;
  let token: string | undefined;
  do {
    const body = await (await fetch(url(token))).json() as { documents: unknown[]; resumption_token?: string | null };
    count += body.documents.length;
    token = body.resumption_token ?? undefined;
  } while (token);
  return { count, seconds: secondsSince(started) };
}

/** Keyset pages of one view range with include_docs: the raw CouchDB read the services are measured against. */
export async function rawViewPages(node: Pick<RunningNode, 'couch' | 'names'>, ddoc: string, view: string, page: number, range: { startkey?: unknown; endkey?: unknown; descending?: boolean }): Promise<{ count: number; seconds: number; pages: PageTime[] }> {
  const db = node.couch.use(node.names.resourceData);
  const started = process.hrtime.bigint();
  const pages: PageTime[] = [];
  let count = 0;
  let startkey: unknown = range.startkey;
  let continuing = false;
  for (;;) {
    const pageStarted = process.hrtime.bigint();
    const result = await db.view(ddoc, view, { include_docs: true, limit: page + (continuing ? 1 : 0), ...(range.descending ? { descending: true } : {}), ...(startkey !== undefined ? { startkey } : {}), ...(range.endkey !== undefined ? { endkey: range.endkey } : {}) });
    pages.push({ page: pages.length + 1, ms: secondsSince(pageStarted) * 1000 });
    const rows = continuing ? result.rows.slice(1) : result.rows;
    count += rows.length;
    if (rows.length < page) break;
    startkey = rows[rows.length - 1]?.key;
    continuing = true;
  }
  return { count, seconds: secondsSince(started), pages };
}

export interface NodeProcess extends Pick<RunningNode, 'couch' | 'names'> {
  url: string;
  pid: number;
  /** True when the node runs on its embedded store (the replicator then names local databases by name). */
  embedded: boolean;
  /** The node process's data directory (the embedded store's files and pid live there). */
  dataDir: string;
  /** Its database prefix ('' on the embedded store). */
  prefix: string;
  /** Its loopback monitoring port's URL (/metrics without credentials), when started with MONITORING_PORT. */
  monitoringUrl: string | undefined;
  /** Stops the node; unless `keep`, deletes its data directory and databases. */
  close(keep?: boolean): Promise<void>;
}

/**
 * The benchmark's command line after NAME (`npm run bench -- NAME --couchdb URL --docs N --page N`);
 * each flag falls back to the benchmark's own environment variable, then to its default.
 */
export interface BenchOptions { couchdb: string | undefined; docs: number; page: number }

export function benchOptions(defaults: { docs: number; docsEnv: string; page?: number; pageEnv?: string }, argv = process.argv.slice(3)): BenchOptions {
  let flags: { couchdb?: string; docs?: string; page?: string };
  try {
    ({ values: flags } = parseArgs({ args: argv, options: { couchdb: { type: 'string' }, docs: { type: 'string' }, page: { type: 'string' } } }));
  } catch (error) {
    throw new Error(`${(error as Error).message.replace(/\s*\n\s*/g, ' ')} (options: --couchdb URL, --docs N, --page N)`, { cause: error });
  }
  const count = (flag: 'docs' | 'page', env: string | undefined, fallback: number): number => {
    const raw = flags[flag] ?? (env ? process.env[env] : undefined);
    const value = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag} must be a positive whole number, not ${raw}`);
    return value;
  };
  const couchdb = flags.couchdb ?? (process.env.BENCH_COUCHDB_URL || undefined);
  if (couchdb !== undefined && !/^https?:\/\/[^/]/.test(couchdb)) throw new Error('--couchdb must be an http(s) URL of a CouchDB 3.x server with admin credentials');
  return { couchdb, docs: count('docs', defaults.docsEnv, defaults.docs), page: count('page', defaults.pageEnv, defaults.page ?? 1) };
}

/** A CouchDB 3.x a run measures: its admin URL, and the prefix of every database the run creates there. */
export interface BenchStore { url: string; runPrefix: string }

/**
 * Says which store the run measures (no credentials printed). For a CouchDB URL, checks that it is
 * an admin URL of CouchDB 3.x and, as the server is shared, deletes the run's databases if the run
 * is interrupted (close() deletes them otherwise). Nano sends the URL's credentials as Basic auth
 * on each request over kept-alive connections (undici), for the node and the raw operations alike;
 * on CouchDB 3.5 that costs about 2 ms a request more than a session cookie, not a pbkdf2 run of
 * 600,000 iterations each time (measured; see docs/benchmarks-log.md).
 */
export async function prepareStore(couchdb: string | undefined): Promise<BenchStore | undefined> {
  if (!couchdb) {
    process.stdout.write('store: embedded (express-pouchdb over PouchDB + LevelDB, a child process of the node)\n');
    return undefined;
  }
  const couch = connectCouch({ url: couchdb });
  const [welcome, session] = await Promise.all([
    couch.request({ path: '' }) as Promise<{ version?: string }>,
    couch.session() as Promise<{ userCtx?: { roles?: string[] } }>,
  ]);
  if (!/^3\./.test(welcome.version ?? '')) throw new Error(`--couchdb: expected CouchDB 3.x, found ${welcome.version ?? 'no version'}`);
  if (!session.userCtx?.roles?.includes('_admin')) throw new Error('--couchdb: the URL\'s credentials are not a server admin\'s');
  const runPrefix = `bench_${randomBytes(4).toString('hex')}_`;
  process.stdout.write(`store: CouchDB ${welcome.version} at ${redactedUrl(couchdb)}, databases ${runPrefix}*\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { void dropPrefixed(couch, runPrefix).finally(() => process.exit(EXIT.interrupted)); });
  }
  return { url: couchdb, runPrefix };
}

/** Deletes every database whose name starts with `prefix` (a benchmark's own, on a shared CouchDB). */
export async function dropPrefixed(couch: RunningNode['couch'], prefix: string): Promise<void> {
  // nano JSON-encodes startkey/endkey itself.
  const names = await couch.request({ path: '_all_dbs', qs: { startkey: prefix, endkey: `${prefix}\ufff0` } }) as string[];
  await Promise.all(names.filter((name) => name.startsWith(prefix)).map((name) => couch.db.destroy(name)));
}

/** The Node flags `npm start` gives the node (package.json's start script), so the benchmarks run it the same way. */
function startFlags(root: string): string[] {
  const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return (scripts.start ?? '').split(/\s+/).filter((word) => /^--[a-z-]+=\S+$/.test(word));
}

let built: Promise<void> | undefined;
/** `npm run build` once per benchmark run (tsc into dist/, as `npm start` does before it starts). */
function buildOnce(root: string): Promise<void> {
  built ??= new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build exited with ${code}`))));
  });
  return built;
}

/**
 * The node as its own process, as `npm start` runs it: the built JavaScript (dist/src/main.js,
 * built at the first start of the run). Through tsx, which the tests use, the same idle node took
 * 166 MB of RSS against 134 MB built (2026-11-25), and RSS is one of the figures measured.
 * BENCH_NODE_FROM_SOURCE=1 runs src/main.ts through tsx instead. Its own process, so its memory can be measured apart from
 * the benchmark's client. On the embedded store the benchmark reaches the store with the
 * credential the node keeps in DATA_DIR; with `couchdb` (from prepareStore) the node gets
 * COUCHDB_URL and a DB_PREFIX of its own under the run's prefix, the benchmark uses the same server for loading and for the raw
 * operations, and close() deletes the prefix's databases.
 */
export async function startNodeProcess(nodeConfig: Record<string, unknown> = {}, couchdb?: BenchStore, env: Record<string, string> = {}, again?: NodeProcess): Promise<NodeProcess> {
  // `again`: a restart of that (stopped, kept) node on its data directory and databases.
  const dataDir = again?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lr-bench-proc-'));
  const configPath = path.join(dataDir, 'bench-config.json');
  fs.writeFileSync(configPath, JSON.stringify(nodeConfig));
  const prefix = again ? again.prefix : couchdb ? `${couchdb.runPrefix}${randomBytes(3).toString('hex')}_` : '';
  // An empty COUCHDB_URL is unset (the embedded store), whatever the caller's shell exports.
  const store = couchdb ? { COUCHDB_URL: couchdb.url, COUCHDB_USER: '', COUCHDB_PASSWORD: '', DB_PREFIX: prefix } : { COUCHDB_URL: '', DB_PREFIX: '' };
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  // BENCH_NODE_FLAGS: extra Node flags for the node process only, e.g. `--cpu-prof --cpu-prof-dir=DIR`
  // (profiling flags are refused in NODE_OPTIONS, and would profile every process anyway).
  const flags = [...startFlags(root), ...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.length > 0)];
  const fromSource = process.env.BENCH_NODE_FROM_SOURCE === '1';
  if (!fromSource) await buildOnce(root);
  const entry = fromSource ? ['--import', 'tsx', path.join(root, 'src/main.ts')] : [path.join(root, 'dist/src/main.js')];
  const child = spawn(process.execPath, [...flags, ...entry], {
    cwd: root, env: { ...process.env, ...store, PORT: '0', DATA_DIR: dataDir, CONFIG: configPath, LOG_LEVEL: process.env.BENCH_NODE_LOG_LEVEL ?? 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  // BENCH_NODE_LOG=DIR keeps each node's log (DIR/node-<pid>.log), e.g. with BENCH_NODE_LOG_LEVEL=debug.
  if (process.env.BENCH_NODE_LOG) child.stdout.pipe(fs.createWriteStream(path.join(process.env.BENCH_NODE_LOG, `node-${child.pid}.log`)));
  let monitoringUrl: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"url":"([^"]+)"[^\n]*"msg":"node listening"/.exec(buffer);
      monitoringUrl ??= /"monitoringUrl":"([^"]+)"[^\n]*"msg":"node listening"/.exec(buffer)?.[1];
      if (match?.[1]) resolve(match[1]);
      if (buffer.length > 100000) buffer = buffer.slice(-10000);
    });
    child.once('exit', (code) => reject(new Error(`node exited ${code}`)));
  });
  child.stdout.resume();
  const couch = couchdb ? connectCouch({ url: couchdb.url }) : embeddedStore(dataDir);
  return {
    url,
    pid: child.pid as number,
    dataDir,
    embedded: !couchdb,
    couch,
    names: databaseNames(prefix),
    prefix,
    monitoringUrl,
    close: async (keep = false) => {
      await new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
      if (keep) return;
      if (couchdb) await dropPrefixed(couch, prefix);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function embeddedStore(dataDir: string): RunningNode['couch'] {
  const store = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8')) as { url: string };
  const admin = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-admin.json'), 'utf8')) as { user: string; password: string };
  return connectCouch({ url: store.url, ...admin });
}

/** Resident set size of a process, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** The store's process, for its RSS: the embedded store is the node's child; a CouchDB's VM when BENCH_COUCHDB_PID names it. */
export function storePid(node: Pick<NodeProcess, 'pid' | 'embedded'>): number | undefined {
  if (!node.embedded) return Number(process.env.BENCH_COUCHDB_PID) || undefined;
  try {
    return Number(fs.readFileSync(`/proc/${node.pid}/task/${node.pid}/children`, 'utf8').trim().split(/\s+/)[0]) || undefined;
  } catch {
    return undefined; // the node has stopped
  }
}

/** The store raw requests go to, past the node: the embedded store's loopback URL and admin (from the node's DATA_DIR), or the CouchDB of --couchdb. */
export function storeEndpoint(node: NodeProcess, couchdb: BenchStore | undefined): { url: string; auth: string; pid: () => number | undefined } {
  if (couchdb) {
    const url = new URL(couchdb.url);
    const auth = basicAuthHeader(decodeURIComponent(url.username), decodeURIComponent(url.password));
    url.username = ''; url.password = '';
    return { url: url.href.replace(/\/$/, ''), auth, pid: () => storePid(node) };
  }
  const { url } = JSON.parse(fs.readFileSync(path.join(node.dataDir, 'embedded-store.json'), 'utf8')) as { url: string };
  const admin = JSON.parse(fs.readFileSync(path.join(node.dataDir, 'embedded-admin.json'), 'utf8')) as { user: string; password: string };
  return { url, auth: basicAuthHeader(admin.user, admin.password), pid: () => storePid(node) };
}
