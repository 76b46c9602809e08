/**
 * The start-up check of a configured CouchDB (src/storage/server-check.ts, docs/couchdb.md):
 * settings that would refuse valid requests later are named in a warning; a server older than
 * 3.x stops the node with one readable line.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startMain } from '../support/process.js';
import { startTestNode, tempDir } from '../support/node.js';
import { onCouchDB } from '../support/store.js';

const warningsIn = (logs: string[]): string[] => logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40).map((entry) => entry.msg);

describe('start-up check of the configured CouchDB', function () {
  this.timeout(120000);

  // Reason: the settings read here are Apache CouchDB's own (/_node/_local/_config); the embedded
  // store has none, and the node starts it with what it needs. CI runs this on CouchDB 3.5.
  (onCouchDB ? it : it.skip)('names each CouchDB setting below what the node configuration needs', async () => {
    const node = await startTestNode({ nodeConfig: { policy: { max_document_size: 9_000_000 }, services: { publish: { service_data: { msg_size_limit: 5_000_000_000 } } } } });
    try {
      const warnings = warningsIn(node.logs);
      expect(warnings.some((w) => w.startsWith('[couchdb] max_document_size is 8000000 bytes, below the policy\'s max_document_size 9000000')), warnings.join('\n')).to.equal(true);
      expect(warnings.some((w) => w.startsWith('[chttpd] max_http_request_size is 4294967296 bytes, below publish msg_size_limit 5000000000')), warnings.join('\n')).to.equal(true);
      expect(node.logs.some((line) => line.includes('"msg":"CouchDB checked"') && line.includes('"couchdbVersion":"3.'))).to.equal(true);
    } finally {
      await node.stop();
    }
  });

  (onCouchDB ? it : it.skip)('warns about nothing size-related with the default configuration', async () => {
    const node = await startTestNode();
    try {
      expect(warningsIn(node.logs).filter((w) => w.includes('max_'))).to.deep.equal([]);
    } finally {
      await node.stop();
    }
  });

  it('stops the node with one line on a CouchDB older than 3.x', async () => {
    // A server answering as CouchDB 2.3.1 does at its root: the check stops before anything else.
    const old = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ couchdb: 'Welcome', version: '2.3.1', vendor: { name: 'The Apache Software Foundation' } }));
    });
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://admin:pw@127.0.0.1:${(old.address() as AddressInfo).port}`;
      const running = startMain({ DATA_DIR: tempDir(), COUCHDB_URL: url });
      const failure = await running.then(() => undefined, (error: Error) => error.message);
      expect(failure).to.match(/node exited 1/);
      expect(failure).to.include('node failed to start: CouchDB 2.3.1 is not supported: the node needs Apache CouchDB 3.x (docs/couchdb.md)');
    } finally {
      old.close();
    }
  });
});
