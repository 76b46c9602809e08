/** A streamed obtain result stays valid JSON when the store fails midway (the failure is reported). */
import http from 'node:http';
import { expect } from 'chai';
import pino from 'pino';
import { startTestNode, tempDir, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';

describe('GET /obtain streaming when CouchDB fails midway', () => {
  const credentials = { user: 'couch_admin', password: 'stream-test-password' };
  let store: EmbeddedCouch;
  let node: TestNode;
  before(async () => {
    store = new EmbeddedCouch({ dataDir: tempDir(), ...credentials, logger: pino({ level: 'silent' }) });
    const url = await store.start();
    node = await startTestNode({
      env: { COUCHDB_URL: url, COUCHDB_USER: credentials.user, COUCHDB_PASSWORD: credentials.password },
      nodeConfig: { services: { obtain: { service_data: { flow_control: false } } } },
    });
    await loadStoredCorpus(node, 3000);
  });
  after(async () => {
    await node.stop();
    await store.stop();
  });

  it('closes the JSON and reports the failure instead of truncating', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      http.get(`${node.url}/obtain`, (response) => {
        expect(response.statusCode).to.equal(200);
        let body = '';
        let stopped = false;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          if (!stopped) {
            stopped = true;
            // Hold the stream while the store goes away, then read on.
            response.pause();
            store.stop().then(() => response.resume(), reject);
          }
        });
        response.on('end', () => resolve(body));
        response.on('error', reject);
      }).on('error', reject);
    });
    const body = JSON.parse(text) as { documents: unknown[]; OK?: boolean; error?: string };
    expect(body.OK).to.equal(false);
    expect(body.error).to.match(/^the result is incomplete after \d+ documents: CouchDB is unreachable/);
    expect(body.documents.length).to.be.greaterThan(0).and.lessThan(3000);
  });
});
