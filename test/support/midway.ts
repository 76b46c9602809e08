/** Streamed answers whose store goes away midway (obtain and harvest streams): a node on a store of its own, and a reader. */
import http from 'node:http';
import { expect } from 'chai';
import pino from 'pino';
import { startTestNode, tempDir, type TestNode } from './node.js';
import { loadStoredCorpus } from './corpus.js';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';

/** GETs `url` (expecting 200), holds the stream after its first chunk while `stopStore` runs, then reads it to the end. */
export function readWhileStoreStops(url: string, stopStore: () => Promise<void>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    http.get(url, (response) => {
      expect(response.statusCode).to.equal(200);
      let body = '';
      let stopped = false;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (!stopped) {
          stopped = true;
          response.pause();
          stopStore().then(() => response.resume(), reject);
        }
      });
      response.on('end', () => resolve(body));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** A test node on an embedded store of its own (which a test may stop), holding `documents` stored documents. */
export async function nodeOnOwnStore(nodeConfig: Record<string, unknown>, documents: number): Promise<{ node: TestNode; store: EmbeddedCouch; stop(): Promise<void> }> {
  const credentials = { user: 'couch_admin', password: 'own-store-password' };
  const store = new EmbeddedCouch({ dataDir: tempDir(), ...credentials, logger: pino({ level: 'silent' }) });
  const url = await store.start();
  const node = await startTestNode({ env: { COUCHDB_URL: url, COUCHDB_USER: credentials.user, COUCHDB_PASSWORD: credentials.password }, nodeConfig });
  await loadStoredCorpus(node, documents);
  return { node, store, stop: async () => { await node.stop(); await store.stop(); } };
}
