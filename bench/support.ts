/** Shared benchmark plumbing: a real node on a fresh embedded store, and the closing line. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/http/logger.js';
import { startNode, type RunningNode } from '../src/runtime.js';

export async function startBenchNode(nodeConfig: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<RunningNode & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-bench-'));
  const configPath = path.join(dataDir, 'bench-config.json');
  fs.writeFileSync(configPath, JSON.stringify(nodeConfig));
  const node = await startNode(loadConfig({ PORT: '0', DATA_DIR: dataDir, CONFIG: configPath, LOG_LEVEL: 'warn', ...env }), createLogger('warn'));
  return { ...node, dataDir };
}

export function basicAuthHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
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
  const templates = loadTemplates();
  const start = Date.parse('2020-01-01T00:00:00Z');
  const db = node.couch.use(node.names.resourceData);
  for (let i = 0; i < total; i += 1000) {
    const docs = [];
    for (let j = i; j < Math.min(i + 1000, total); j += 1) {
      const doc = generateDocument(j, templates, true);
      const stamp = nodeTimestamp(new Date(start + j * stepMs));
      docs.push({ ...shape(doc, j), _id: doc.doc_ID, publish_node: 'bench', publishing_node: 'bench', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp });
    }
    await db.bulk({ docs });
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
export async function rawViewPages(node: Pick<RunningNode, 'couch' | 'names'>, ddoc: string, view: string, page: number, range: { startkey?: unknown; endkey?: unknown; descending?: boolean }): Promise<{ count: number; seconds: number }> {
  const db = node.couch.use(node.names.resourceData);
  const started = process.hrtime.bigint();
  let count = 0;
  let startkey: unknown = range.startkey;
  let continuing = false;
  for (;;) {
    const result = await db.view(ddoc, view, { include_docs: true, limit: page + (continuing ? 1 : 0), ...(range.descending ? { descending: true } : {}), ...(startkey !== undefined ? { startkey } : {}), ...(range.endkey !== undefined ? { endkey: range.endkey } : {}) });
    const rows = continuing ? result.rows.slice(1) : result.rows;
    count += rows.length;
    if (rows.length < page) break;
    startkey = rows[rows.length - 1]?.key;
    continuing = true;
  }
  return { count, seconds: secondsSince(started) };
}

export interface NodeProcess extends Pick<RunningNode, 'couch' | 'names'> {
  url: string;
  pid: number;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The node as its own process (src/main.ts through tsx), so its memory can be measured apart from
 * the benchmark's client; the benchmark reaches the node's embedded store with the credential the
 * node keeps in DATA_DIR, for loading and for the raw reads.
 */
export async function startNodeProcess(nodeConfig: Record<string, unknown> = {}): Promise<NodeProcess> {
  const { spawn } = await import('node:child_process');
  const { connectCouch } = await import('../src/storage/couch.js');
  const { databaseNames } = await import('../src/storage/databases.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-bench-proc-'));
  const configPath = path.join(dataDir, 'bench-config.json');
  fs.writeFileSync(configPath, JSON.stringify(nodeConfig));
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
    cwd: root, env: { ...process.env, PORT: '0', DATA_DIR: dataDir, CONFIG: configPath, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"url":"([^"]+)"[^\n]*"msg":"node listening"/.exec(buffer);
      if (match?.[1]) resolve(match[1]);
      if (buffer.length > 100000) buffer = buffer.slice(-10000);
    });
    child.once('exit', (code) => reject(new Error(`node exited ${code}`)));
  });
  child.stdout.resume();
  const store = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8')) as { url: string };
  const admin = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-admin.json'), 'utf8')) as { user: string; password: string };
  return {
    url,
    pid: child.pid as number,
    dataDir,
    couch: connectCouch({ url: store.url, ...admin }),
    names: databaseNames(''),
    close: () => new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }),
  };
}

/** Resident set size of a process, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}
