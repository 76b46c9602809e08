/**
 * One "store not bootstrapped / unavailable" outcome (issue 12, part 1 and 4): 503 with
 * Retry-After, in the error form of each protocol (JSON, OAI-PMH, sword:error, HTML page), while
 * the node starts, while its CouchDB is down, and when a document bootstrap writes is missing.
 */
import net from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import { startTestNode, addAccount, basicAuth, postJson, tempDir, settled, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';
import { COMMUNITY_DESCRIPTION_ID, NODE_DESCRIPTION_ID } from '../../src/domain/node-documents.js';

const ADMIN = basicAuth('ops', 'a-long-admin-password');

interface Answer { status: number; type: string; retryAfter: string | null; text: string }

async function ask(url: string, init?: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, type: response.headers.get('content-type') ?? '', retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

/** Each protocol's request, and what its 503 must look like. */
const PROTOCOLS: { name: string; path: string; init?: RequestInit; form: (answer: Answer) => void; readsNodeDocs?: false }[] = [
  { name: 'JSON /status', path: '/status', form: json },
  { name: 'JSON GET /obtain', path: '/obtain?request_ID=x', form: json, readsNodeDocs: false },
  { name: 'JSON /harvest', path: '/harvest/getrecord?request_ID=x', form: json },
  { name: 'JSON /destination', path: '/destination', form: json },
  { name: 'JSON POST /distribute', path: '/distribute', init: { method: 'POST', headers: { authorization: ADMIN } }, form: json },
  { name: 'OAI-PMH', path: '/OAI-PMH?verb=Identify', form: (answer) => expect(answer.type).to.match(/^text\/plain/) },
  { name: 'SWORD', path: '/swordservice', init: { headers: { authorization: ADMIN } }, form: sword, readsNodeDocs: false },
  // With sign-in configured, /auth reads its cookie key from the store (the provider is asked only at sign-in).
  { name: 'HTML /auth', path: '/auth', form: html, readsNodeDocs: false },
];

function json(answer: Answer): void {
  expect(answer.type).to.match(/^application\/json/);
  const body = JSON.parse(answer.text) as { OK: boolean; error: string };
  expect(body.OK).to.equal(false);
  expect(body.error).to.be.a('string').and.not.equal('internal error');
}

function sword(answer: Answer): void {
  expect(answer.type).to.match(/^application\/xml/);
  expect(answer.text).to.match(/<sword:error [^>]*href="urn:x-learning-registry:sword:error:ServiceUnavailable"/);
}

function html(answer: Answer): void {
  expect(answer.type).to.match(/^text\/html/);
  expect(answer.text).to.match(/^<!doctype html>/).and.match(/role="alert"/);
}

function expectUnavailable(answer: Answer, what: string, form: (answer: Answer) => void): void {
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).to.equal(503);
  expect(Number(answer.retryAfter), `${what}: Retry-After`).to.be.above(0);
  form(answer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

describe('store not bootstrapped or unavailable: 503 with Retry-After in each protocol\'s form', function () {
  this.timeout(120000);
  const storeDir = tempDir();
  const credentials = { user: 'couch_admin', password: 'a-long-test-password' };
  let store: EmbeddedCouch;
  let storePort: number;
  let node: TestNode;
  let starting: Promise<TestNode>;
  let nodeUrl: string;

  before(async () => {
    // The node's CouchDB is not up yet: the node binds its port and waits for it (runtime.ts).
    storePort = await freePort();
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    starting = startTestNode({ env: { PORT: String(port), OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'lr-node', OIDC_CLIENT_SECRET: 'a-client-secret', COUCHDB_URL: `http://127.0.0.1:${storePort}`, COUCHDB_USER: credentials.user, COUCHDB_PASSWORD: credentials.password } });
    starting.catch(() => undefined);
  });
  after(async () => {
    await node?.stop();
    await store?.stop();
  });

  it('while the node starts (its store not reachable yet)', async () => {
    for (const { name, path, init, form } of [...PROTOCOLS, { name: 'HTML /dashboard', path: '/dashboard', form: html }]) {
      expectUnavailable(await ask(`${nodeUrl}${path}`, init), name, form);
    }
    store = new EmbeddedCouch({ dataDir: storeDir, ...credentials, port: storePort, logger: pino({ level: 'silent' }) });
    await store.start();
    node = await starting;
    // Polled during every start, these answers are no fault: logged at info, never as errors with a stack.
    const startingLines = node.logs.map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown })
      .filter((line) => line.msg.includes('the node is starting'));
    expect(startingLines.length, 'start-up answers logged').to.be.at.least(PROTOCOLS.length);
    expect(startingLines.filter((line) => line.level >= 40 || line.err !== undefined), 'start-up answers logged as faults').to.deep.equal([]);
    expect((await ask(`${node.url}/status`)).status).to.equal(200);
    await addAccount(node, 'ops', 'a-long-admin-password', ['network_admin', 'publisher']);
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: ADMIN });
    expect(published.status).to.equal(200);
  });

  it('when the node and community descriptions are missing (not bootstrapped)', async () => {
    const nodeDb = node.couch.use(node.names.node);
    const communityDb = node.couch.use(node.names.community);
    const nodeDoc = await nodeDb.get(NODE_DESCRIPTION_ID);
    const communityDoc = await communityDb.get(COMMUNITY_DESCRIPTION_ID);
    await nodeDb.destroy(nodeDoc._id, nodeDoc._rev);
    await communityDb.destroy(communityDoc._id, communityDoc._rev);
    await settled(node); // an operator's edit reaches the node through the _changes feed
    try {
      for (const { name, path, init, form } of PROTOCOLS.filter((protocol) => protocol.readsNodeDocs !== false)) {
        const answer = await ask(`${node.url}${path}`, init);
        expectUnavailable(answer, name, form);
        expect(answer.text, name).to.match(/not bootstrapped/);
      }
    } finally {
      const { _rev: nodeRev, ...nodeFields } = nodeDoc;
      const { _rev: communityRev, ...communityFields } = communityDoc;
      void nodeRev; void communityRev;
      await nodeDb.insert(nodeFields);
      await communityDb.insert(communityFields);
      await settled(node);
    }
    expect((await ask(`${node.url}/destination`)).status).to.equal(200);
  });

  it('while the node\'s CouchDB is down', async () => {
    await store.stop();
    for (const { name, path, init, form } of PROTOCOLS) {
      const answer = await ask(`${node.url}${path}`, init);
      expectUnavailable(answer, name, form);
      expect(answer.text).to.not.contain(credentials.password);
    }
  });
});
