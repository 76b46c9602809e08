/**
 * Runs the lr-node binary (bin/lr-node.js → the built dist/, rebuilt first when a source is newer)
 * as a child process, and a forwarding proxy that slows or refuses requests to a real node.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { storeEnvOf } from './store.js';
import { ROOT, exitOf } from './process.js';
import { newestSource } from '../../bin/newest-source.js';

export const BIN = path.join(ROOT, 'bin', 'lr-node.js');
const BUILT = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** `npm run build` unless dist/ is newer than every TypeScript file of src/ (the tests drive the built binary). */
export function ensureBuilt(): void {
  if (fs.existsSync(BUILT) && fs.statSync(BUILT).mtimeMs >= newestSource(path.join(ROOT, 'src'))) return;
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'build.ts')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`build failed: ${result.stdout}${result.stderr}`);
}

export interface CliRun { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** The command's environment; a DATA_DIR follows the suite's store (support/store.ts) unless COUCHDB_URL is given. */
export function cliEnv(env: Record<string, string> = {}): Record<string, string> {
  const store = storeEnvOf(env);
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...store, ...env };
}

export function spawnCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): { child: ChildProcess; output: () => CliRun } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: cliEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  return { child, output: () => ({ code: child.exitCode, signal: child.signalCode, stdout, stderr }) };
}

export async function lrNode(args: string[], options: { env?: Record<string, string>; cwd?: string; stdin?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const { child, output } = spawnCli(args, options);
  child.stdin?.end(options.stdin ?? '');
  const { code, signal } = await exitOf(child, options.timeoutMs ?? 120000);
  return { ...output(), code, signal };
}

/** Control characters other than newline and tab (ANSI escapes, carriage returns, bar redraws). */
export const CONTROL_CHARACTERS = /[^\P{Cc}\n\t]/u;

/**
 * `requests`: method, path and Content-Length of each request; `times`: when each arrived
 * (Date.now()); `bodies`: the body of each POST.
 */
export interface Proxy { url: string; requests: string[]; times: number[]; bodies: string[]; close(): Promise<void> }

/**
 * A proxy to `target`: every request waits `delayMs`; the requests for which `refuse` says so
 * get 503 with `Retry-After: retryAfter` (default 1) instead of reaching the node, those `drop`
 * names a closed connection.
 */
export async function startProxy(target: string, options: { delayMs?: number; refuse?: (n: number, url: string) => boolean; retryAfter?: string; drop?: (n: number) => boolean } = {}): Promise<Proxy> {
  const requests: string[] = [];
  const times: number[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    times.push(Date.now());
    const n = requests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['content-length'] ?? ''}`.trim());
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => setTimeout(() => {
      if (options.drop?.(n)) { req.socket.destroy(); return; }
      if (options.refuse?.(n, req.url ?? '')) {
        res.writeHead(503, { 'retry-after': options.retryAfter ?? '1', 'content-type': 'text/plain' });
        res.end('busy');
        return;
      }
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') bodies.push(body.toString('utf8'));
      const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => { res.writeHead(502); res.end(); });
      upstream.end(body);
    }, options.delayMs ?? 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    times,
    bodies,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Resolves once `check` holds, polling every 20 ms. */
export async function until(check: () => boolean, timeoutMs = 60000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
