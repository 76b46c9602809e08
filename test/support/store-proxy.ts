/**
 * A node whose store is reached through a pass-through proxy the test controls: it records the
 * method and path of every request (the `_changes` longpolls apart) and can stall, holding every
 * new request unanswered until released, as a store that stops answering does, or answer chosen
 * requests late, as a busy cluster does. The store is the
 * suite's (TEST_COUCHDB_URL) or an embedded store started here.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';
import { startTestNode, tempDir, type TestNode } from './node.js';
import { TEST_COUCHDB_URL, prefixFor } from './store.js';

export interface StoreProxy {
  url: string;
  /** `METHOD /path` of each request since the last reset. */
  seen: string[];
  /** Bytes of the store's `_changes` answers, per database. */
  changesBytes: Map<string, number>;
  /** From now on, requests are held unanswered (the ones already forwarded go on). */
  stall(): void;
  /** Forwards the held requests and every later one. */
  release(): void;
  /** From now on, requests `which` picks are answered `ms` later (0: no longer). */
  slow(ms: number, which: (method: string, path: string) => boolean): void;
  close(): Promise<void>;
}

async function storeProxy(target: string): Promise<StoreProxy> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const changesBytes = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: true });
  let held: (() => void)[] | undefined;
  let slowness: { ms: number; which: (method: string, path: string) => boolean } | undefined;
  const forward = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const outbound = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      const feedOf = /^\/([^/?]+)\/_changes(?:\?|$)/.exec(req.url ?? '')?.[1];
      if (feedOf !== undefined) answer.on('data', (chunk: Buffer) => changesBytes.set(decodeURIComponent(feedOf), (changesBytes.get(decodeURIComponent(feedOf)) ?? 0) + chunk.length));
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outbound.on('error', () => res.destroy());
    req.pipe(outbound);
  };
  const server = http.createServer((req, res) => {
    const pathOnly = (req.url ?? '').split('?')[0] ?? '';
    if (!pathOnly.endsWith('/_changes')) seen.push(`${req.method} ${decodeURIComponent(pathOnly)}`);
    if (held) held.push(() => forward(req, res));
    else if (slowness && slowness.ms > 0 && slowness.which(req.method ?? '', decodeURIComponent(pathOnly))) setTimeout(() => forward(req, res), slowness.ms);
    else forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    changesBytes,
    stall: () => { held ??= []; },
    release: () => { const waiting = held ?? []; held = undefined; for (const go of waiting) go(); },
    slow: (ms, which) => { slowness = { ms, which }; },
    close: async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); agent.destroy(); },
  };
}

export interface ProxiedNode {
  node: TestNode;
  proxy: StoreProxy;
  stop(): Promise<void>;
}

/** A test node on the suite's store (or an embedded one of its own), reached through a proxy. */
export async function startProxiedNode(env: Record<string, string> = {}): Promise<ProxiedNode> {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-proxied-store-'));
  let embedded: EmbeddedCouch | undefined;
  let target: string;
  let auth: { user: string; password: string };
  if (TEST_COUCHDB_URL) {
    const url = new URL(TEST_COUCHDB_URL);
    auth = { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = ''; url.password = '';
    target = url.href.replace(/\/$/, '');
  } else {
    auth = { user: 'proxied-admin', password: 'proxied-admin-password' };
    embedded = new EmbeddedCouch({ dataDir: storeDir, ...auth, logger: pino({ level: 'silent' }) });
    target = await embedded.start();
  }
  const proxy = await storeProxy(target);
  const dataDir = tempDir();
  const node = await startTestNode({ dataDir, env: { COUCHDB_URL: proxy.url, COUCHDB_USER: auth.user, COUCHDB_PASSWORD: auth.password, DB_PREFIX: prefixFor(dataDir), ...env } });
  return {
    node,
    proxy,
    stop: async () => {
      proxy.release();
      await node.stop();
      await proxy.close();
      await embedded?.stop();
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
