/** Starts a real node (app on port 0, temporary data directory) on the suite's store (support/store.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/http/logger.js';
import { startNode, type RunningNode } from '../../src/runtime.js';
import { storeEnv } from './store.js';
import type { AccountRole } from '../../src/storage/account-repository.js';

export interface TestNode extends RunningNode {
  dataDir: string;
  logs: string[];
  stop(): Promise<void>;
}

export function tempDir(prefix = 'lr-node-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestNodeOptions {
  dataDir?: string;
  nodeConfig?: Record<string, unknown>;
  env?: Record<string, string>;
}

export async function startTestNode(options: TestNodeOptions = {}): Promise<TestNode> {
  const dataDir = options.dataDir ?? tempDir();
  const env: Record<string, string> = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...storeEnv(dataDir), ...options.env };
  if (options.nodeConfig) {
    const configPath = path.join(dataDir, 'test-config.json');
    fs.writeFileSync(configPath, JSON.stringify(options.nodeConfig));
    env.CONFIG = configPath;
  }
  const logs: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { logs.push(chunk.toString('utf8')); done(); } });
  const node = await startNode(loadConfig(env), createLogger(env.LOG_LEVEL ?? 'info', sink));
  return { ...node, dataDir, logs, stop: () => node.close() };
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
  return { status: response.status, body, headers: response.headers };
}

/**
 * GET /status until its live count is current. /status never waits for an index (issue 14,
 * defect 8): right after a write it may answer with the count as last indexed
 * (`doc_count_current` false) while the index check it started goes on.
 */
export async function currentStatus(url: string, timeoutMs = 60000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getJson(`${url}/status`);
    if (body.doc_count_current === true) return body;
    if (Date.now() > deadline) throw new Error(`/status has no current count after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates an account in the node's accounts database with the service `npm run account -- add` calls. */
export async function addAccount(node: RunningNode, name: string, password: string, role: AccountRole | AccountRole[] = 'publisher', submitter = name): Promise<void> {
  const { AccountRepository } = await import('../../src/storage/account-repository.js');
  const { createAccount } = await import('../../src/services/auth/accounts.service.js');
  await createAccount(new AccountRepository(node.couch, node.names), { name, roles: Array.isArray(role) ? role : [role], submitter, password });
  await settled(node);
}

/** The owner the node records for the account `name` (its pseudonym: src/domain/ownership.ts), keyed by the token secret in its node database. */
export async function recordedOwner(node: RunningNode, name: string): Promise<string> {
  const { NODE_SECRETS_ID } = await import('../../src/storage/node-repository.js');
  const { OwnerPseudonyms } = await import('../../src/domain/ownership.js');
  const secrets = await node.couch.use(node.names.node).get(NODE_SECRETS_ID) as unknown as { token_secret: string };
  return new OwnerPseudonyms(secrets.token_secret).of(name);
}

/**
 * After a test wrote node, service or account documents straight to the store (as an operator
 * would): resolves once the node's _changes feeds have taken the change in (src/storage/followed-documents.ts).
 */
export async function settled(node: RunningNode): Promise<void> {
  await Promise.all(node.deps.followed.map((feed) => feed.settled()));
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  return getJson(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
