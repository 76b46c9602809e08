/** CouchDB going away and coming back: 503 JSON meanwhile, recovery without a restart of the node. */
import net from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import { startTestNode, getJson, tempDir, type TestNode } from '../support/node.js';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';

describe('supervisor of the embedded store', () => {
  let node: TestNode;
  // The supervisor is the embedded store's: this node always runs on one (an empty COUCHDB_URL
  // is unset), also when the suite runs on CouchDB.
  before(async () => { node = await startTestNode({ env: { COUCHDB_URL: '' } }); });
  after(async () => node.stop());

  it('restarts a killed embedded server on the same port and the node recovers by itself', async () => {
    const embedded = node.embedded as EmbeddedCouch;
    const pid = embedded.pid as number;
    const url = embedded.url;
    const exited = new Promise((resolve) => { const check = setInterval(() => { try { process.kill(pid, 0); } catch { clearInterval(check); resolve(undefined); } }, 5); });
    process.kill(pid, 'SIGKILL');
    await exited;
    // The supervisor waits 200 ms before restarting: meanwhile the node answers 503 JSON.
    const down = await getJson(`${node.url}/status`);
    expect(down.status).to.equal(503);
    expect(down.body.OK).to.equal(false);
    await embedded.whenRunning();
    expect(embedded.pid).to.not.equal(pid);
    expect(embedded.restartCount).to.equal(1);
    expect(embedded.url).to.equal(url);
    const { status, body } = await getJson(`${node.url}/status`);
    expect(status).to.equal(200);
    expect(body.node_id).to.equal(node.bootstrap.nodeId);
  });

  it('a restart that fails (its port taken meanwhile) is tried again until the store is back', async () => {
    // One failed restart was only logged: the node stayed without its store for good.
    const embedded = node.embedded as EmbeddedCouch;
    const pid = embedded.pid as number;
    const port = Number(new URL(embedded.url).port);
    const exited = new Promise((resolve) => { const check = setInterval(() => { try { process.kill(pid, 0); } catch { clearInterval(check); resolve(undefined); } }, 5); });
    process.kill(pid, 'SIGKILL');
    await exited;
    // The port is taken before the supervisor's first restart (200 ms later), and for a while
    // after; whatever connects to it is hung up on, as a port with nothing behind it would be.
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => { squatter.once('error', reject); squatter.listen(port, '127.0.0.1', () => resolve()); });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // A read that goes to the store (/status answers from what it read last).
      expect((await getJson(`${node.url}/obtain?request_ID=doc-1&by_doc_ID=T`)).status, 'while the port is taken').to.equal(503);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
    await embedded.whenRunning();
    expect(embedded.url).to.equal(`http://127.0.0.1:${port}`);
    expect((await getJson(`${node.url}/status`)).status).to.equal(200);
  });
});

describe('COUCHDB_URL: a configured CouchDB that goes down and comes back', () => {
  // The "configured CouchDB" is an embedded store the test runs itself, so it can stop and start it.
  const storeDir = tempDir();
  const credentials = { user: 'couch_admin', password: 'a-long-test-password' };
  let store: EmbeddedCouch;
  let node: TestNode;

  before(async () => {
    store = new EmbeddedCouch({ dataDir: storeDir, ...credentials, logger: pino({ level: 'silent' }) });
    const url = await store.start();
    node = await startTestNode({ env: { COUCHDB_URL: url, COUCHDB_USER: credentials.user, COUCHDB_PASSWORD: credentials.password } });
  });
  after(async () => {
    await node.stop();
    await store.stop();
  });

  it('starts no store of its own', () => {
    expect(node.embedded).to.equal(undefined);
  });

  it('answers 503 JSON naming the cause while CouchDB is down, then recovers when it is back', async () => {
    expect((await getJson(`${node.url}/status`)).status).to.equal(200);
    const port = Number(new URL(store.url).port);
    await store.stop();
    for (const path of ['/status', '/services', '/description', '/pubkey']) {
      const { status, body } = await getJson(`${node.url}${path}`);
      expect(status, path).to.equal(503);
      expect(body.OK).to.equal(false);
      expect(String(body.error)).to.match(/CouchDB is unreachable/);
      expect(JSON.stringify(body)).to.not.contain(credentials.password);
    }
    store = new EmbeddedCouch({ dataDir: storeDir, ...credentials, port, logger: pino({ level: 'silent' }) });
    await store.start();
    const { status, body } = await getJson(`${node.url}/status`);
    expect(status).to.equal(200);
    expect(body.node_id).to.equal(node.bootstrap.nodeId);
    expect(node.logs.join('')).to.not.contain(credentials.password);
  });
});
