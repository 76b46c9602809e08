/** Multi-node networks on loopback for the distribution tests (built by scripts/network.ts). */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../src/http/logger.js';
import { startNetwork, stopNetwork, connectNodes, type NetworkNode, type NetworkOptions } from '../../scripts/network.js';
import type { StoredDoc } from '../../src/storage/documents.js';
import { basicAuth, postJson, getJson } from './node.js';
import { storeEnv } from './store.js';
import type { Doc } from './documents.js';

export type { NetworkNode };
export { connectNodes, stopNetwork };

export interface TestNetwork { nodes: NetworkNode[]; logs: string[][]; stop(): Promise<void> }

export async function startTestNetwork(options: Omit<NetworkOptions, 'logger'>): Promise<TestNetwork> {
  const logs: string[][] = Array.from({ length: options.nodes }, () => []);
  const logger = (index: number) => createLogger('debug', new Writable({ write(chunk: Buffer, _e, done) { logs[index]?.push(chunk.toString('utf8')); done(); } }));
  const nodes = await startNetwork({ basePort: 0, env: storeEnv, ...options, logger });
  return { nodes, logs, stop: () => stopNetwork(nodes) };
}

export const authOf = (credentials: { user: string; password: string }): { authorization: string } => ({ authorization: basicAuth(credentials.user, credentials.password) });

export async function publish(entry: NetworkNode, documents: Doc[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < documents.length; i += 1000) {
    const { status, body } = await postJson(`${entry.node.url}/publish`, { documents: documents.slice(i, i + 1000) }, authOf(entry.publisher));
    expect(status, JSON.stringify(body).slice(0, 300)).to.equal(200);
    for (const result of body.document_results as { doc_ID: string; OK: boolean; error?: string }[]) {
      expect(result.OK, result.error).to.equal(true);
      ids.push(result.doc_ID);
    }
  }
  return ids;
}

export async function distribute(entry: NetworkNode): Promise<{ status: number; body: Record<string, unknown> }> {
  return postJson(`${entry.node.url}/distribute`, '', authOf(entry.admin));
}

/** Every document of the resource data database but design documents, by _id. */
export async function storedDocs(entry: NetworkNode): Promise<Map<string, StoredDoc>> {
  const result = await entry.node.couch.use(entry.node.names.resourceData).list({ include_docs: true });
  return new Map(result.rows.filter((row) => !row.id.startsWith('_design/')).map((row) => [row.id, row.doc as unknown as StoredDoc]));
}

/** Live documents left in incoming (not yet processed). */
export async function incomingCount(entry: NetworkNode): Promise<number> {
  const info = await entry.node.couch.use(entry.node.names.incoming).info();
  const design = (await entry.node.couch.use(entry.node.names.incoming).list({ startkey: '_design/', endkey: '_design0' })).rows.length;
  return info.doc_count - design;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the node's follower has emptied incoming and `count` resource documents are stored. */
export async function settled(entry: NetworkNode, count: number, timeoutMs = 30000): Promise<Map<string, StoredDoc>> {
  return waitFor(`${entry.name} to hold ${count} documents`, async () => {
    const docs = await storedDocs(entry);
    return docs.size >= count && (await incomingCount(entry)) === 0 ? docs : undefined;
  }, timeoutMs);
}

export async function outbound(entry: NetworkNode, destination: NetworkNode): Promise<Record<string, unknown>> {
  const { body } = await getJson(`${entry.node.url}/status`);
  return ((body.outbound as Record<string, Record<string, unknown>>)[destination.node.publicUrl]) ?? {};
}
