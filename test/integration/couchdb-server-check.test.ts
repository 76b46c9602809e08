/**
 * The start-up check of a configured CouchDB (src/storage/server-check.ts, docs/couchdb.md):
 * settings that would refuse valid requests later are named in a warning; a server older than
 * 3.x stops the node with one readable line.
 *
 * Reason the tests on a real server are skipped on the embedded store: the settings, users and
 * setup state read here are Apache CouchDB's own (/_node/_local/_config, /_session, _users,
 * /_membership); the embedded store has none, and the node starts it with what it needs. CI runs
 * them on CouchDB 3.5.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startMain } from '../support/process.js';
import { startTestNode, tempDir, addAccount, basicAuth, postJson, getJson } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { onCouchDB, TEST_COUCHDB_URL, prefixFor, storeEnv } from '../support/store.js';
import { startCouchInstance, type CouchInstance } from '../support/couchdb-fixture.js';
import { startTestNetwork, publish, distribute, settled, outbound, type NetworkNode, type TestNetwork } from '../support/network.js';

/** A CouchDB as its admin (`adminUrl`, credentials in it): root URL without credentials, and the Authorization header. */
function serverOf(adminUrl: string): { root: string; url: URL; headers: Record<string, string> } {
  const url = new URL(adminUrl);
  const headers = { authorization: basicAuth(decodeURIComponent(url.username), decodeURIComponent(url.password)), 'content-type': 'application/json' };
  const bare = new URL(url.href);
  bare.username = ''; bare.password = '';
  return { root: bare.href.replace(/\/$/, ''), url, headers };
}

/** One setting of a CouchDB (undefined: unset), read and written through /_node/_local/_config. */
async function configValue(adminUrl: string, section: string, key: string): Promise<string | undefined> {
  const { root, headers } = serverOf(adminUrl);
  const answer = await fetch(`${root}/_node/_local/_config/${section}/${key}`, { headers });
  if (answer.status === 404) return undefined;
  expect(answer.status).to.equal(200);
  return await answer.json() as string;
}
async function setConfig(adminUrl: string, section: string, key: string, value: string | undefined): Promise<void> {
  const { root, headers } = serverOf(adminUrl);
  const answer = await fetch(`${root}/_node/_local/_config/${section}/${key}`, value === undefined ? { method: 'DELETE', headers } : { method: 'PUT', headers, body: JSON.stringify(value) });
  expect([200, 404]).to.include(answer.status);
}

const infosIn = (logs: string[]): string[] => logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 30).map((entry) => entry.msg);
const warningsIn = (logs: string[]): string[] => logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40).map((entry) => entry.msg);

describe('start-up check of the configured CouchDB', function () {
  this.timeout(120000);

  // The tests that read the server's own settings (they expect CouchDB's defaults), switch one
  // (require_valid_user) or write its _users run on a CouchDB of the fixture's own, never on the
  // suite's server, which may be an operator's (README: the suite on a CouchDB of one's own).
  // Reason for the skip on the embedded store: the settings, users and setup state read here are
  // Apache CouchDB's own; the embedded store has none. CI runs them on CouchDB 3.5.
  (onCouchDB ? describe : describe.skip)('on a CouchDB of its own (server settings read and switched, users written)', () => {
    let instance: CouchInstance | undefined;
    const couch = (): CouchInstance => instance as CouchInstance;
    /** A node's environment for that CouchDB (its databases named by the test's own prefix, from storeEnv). */
    const own = (): Record<string, string> => ({ COUCHDB_URL: couch().url });
    before(async () => { instance = await startCouchInstance(); });
    after(async () => { await instance?.stop(); });

    it('names each CouchDB setting below what the node configuration needs (the stored one at a start without CONFIG)', async () => {
      const dataDir = tempDir();
      for (const nodeConfig of [{ policy: { max_document_size: 9_000_000 }, services: { publish: { service_data: { msg_size_limit: 5_000_000_000 } } } }, undefined]) {
        const node = await startTestNode({ dataDir, env: own(), ...(nodeConfig ? { nodeConfig } : {}) });
        try {
          const warnings = warningsIn(node.logs);
          expect(warnings.some((w) => w.startsWith('[couchdb] max_document_size is 8000000 bytes, below the policy\'s max_document_size 9000000')), warnings.join('\n')).to.equal(true);
          expect(warnings.some((w) => w.startsWith('[chttpd] max_http_request_size is 4294967296 bytes, below publish msg_size_limit 5000000000')), warnings.join('\n')).to.equal(true);
          expect(node.logs.some((line) => line.includes('"msg":"CouchDB checked"') && line.includes('"couchdbVersion":"3.'))).to.equal(true);
        } finally {
          await node.stop();
        }
      }
    });

    it('warns about nothing size- or setup-related with the default configuration', async () => {
      const node = await startTestNode({ env: own() });
      try {
        expect(warningsIn(node.logs).filter((w) => w.includes('max_') || w.includes('single_node') || w.includes('server admin'))).to.deep.equal([]);
      } finally {
        await node.stop();
      }
    });

    // The server's own setting, switched for this test and put back as it was.
    it('notes [replicator] startup_jitter while distributions wait for it (CouchDB\'s default), not once it is 0', async () => {
      const original = await configValue(couch().url, 'replicator', 'startup_jitter');
      try {
        await setConfig(couch().url, 'replicator', 'startup_jitter', undefined);
        const byDefault = await startTestNode({ env: own() });
        await byDefault.stop();
        expect(infosIn(byDefault.logs), infosIn(byDefault.logs).join('\n')).to.include('[replicator] startup_jitter is 5000 ms: each /distribute waits a random 0 to 5000 ms before its first document moves; 0 suits a CouchDB whose replications are the node\'s (docs/couchdb.md)');
        expect(warningsIn(byDefault.logs).filter((w) => w.includes('startup_jitter')), 'a note, not a warning').to.deep.equal([]);
        await setConfig(couch().url, 'replicator', 'startup_jitter', '0');
        const none = await startTestNode({ env: own() });
        await none.stop();
        expect(infosIn(none.logs).filter((line) => line.includes('startup_jitter'))).to.deep.equal([]);
        expect(infosIn(none.logs)).to.include('CouchDB checked');
      } finally {
        await setConfig(couch().url, 'replicator', 'startup_jitter', original);
      }
      expect(await configValue(couch().url, 'replicator', 'startup_jitter')).to.equal(original);
    });

    // The server's own setting, switched for this test and put back as it was.
    it('warns while [chttpd] require_valid_user is off, not once it is on, and works with it on (publish, harvest, distribution)', async () => {
      const { root } = serverOf(couch().url);
      const original = await configValue(couch().url, 'chttpd', 'require_valid_user');
      let net: TestNetwork | undefined;
      try {
        await setConfig(couch().url, 'chttpd', 'require_valid_user', 'false');
        const off = await startTestNode({ env: own() });
        await off.stop();
        expect(warningsIn(off.logs), warningsIn(off.logs).join('\n')).to.include('[chttpd] require_valid_user is not true: anonymous clients can reach CouchDB\'s own endpoints; set it to true (the node always authenticates)');

        await setConfig(couch().url, 'chttpd', 'require_valid_user', 'true');
        const anonymous = await fetch(`${root}/_all_dbs`);
        expect(anonymous.status, 'CouchDB refuses anonymous clients now').to.equal(401);
        expect(((await anonymous.json()) as { reason: string }).reason).to.equal('Authentication required.');
        // Two nodes on the server: the node's own requests and CouchDB's replicator (whose source
        // is this server, credentials in its URL) all authenticate.
        net = await startTestNetwork({ nodes: 2, topology: 'chain', env: (dataDir) => ({ ...storeEnv(dataDir), ...own() }) });
        const [a, b] = net.nodes as [NetworkNode, NetworkNode];
        for (const logs of net.logs) expect(warningsIn(logs).filter((w) => w.includes('require_valid_user'))).to.deep.equal([]);
        expect(net.logs[0]?.join('')).to.include('"msg":"CouchDB checked"');
        const ids = await publish(a, nsdlDocs(5));
        const harvest = await getJson(`${a.node.url}/harvest/listidentifiers`);
        expect((harvest.body.listidentifiers as unknown[]).length).to.equal(5);
        expect((await distribute(a)).status).to.equal(200);
        expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 5 });
        const arrived = await settled(b, ids.length);
        for (const id of ids) expect(arrived.has(id)).to.equal(true);
      } finally {
        await net?.stop();
        await setConfig(couch().url, 'chttpd', 'require_valid_user', original);
      }
      expect(await configValue(couch().url, 'chttpd', 'require_valid_user')).to.equal(original);
    });

    it('warns that a CouchDB user that is not a server admin cannot run the node, which then stops with one line', async () => {
      // A real user of the server's _users database, with no role: CouchDB 3 lets it sign in, but
      // only server admins read the configuration and list or create databases.
      const { root, url, headers } = serverOf(couch().url);
      const name = `lr-check-${randomBytes(4).toString('hex')}`;
      const password = randomBytes(12).toString('hex');
      const userDoc = `${root}/_users/${encodeURIComponent(`org.couchdb.user:${name}`)}`;
      const created = await fetch(userDoc, { method: 'PUT', headers, body: JSON.stringify({ name, password, roles: [], type: 'user' }) });
      expect(created.status).to.equal(201);
      try {
        const asUser = new URL(url.href);
        asUser.username = name; asUser.password = password;
        const dataDir = tempDir();
        const failure = await startMain({ DATA_DIR: dataDir, COUCHDB_URL: asUser.href, DB_PREFIX: prefixFor(dataDir) }).then(() => undefined, (error: Error) => error.message);
        // A setting to fix (EXIT.failure), not a store out of reach (EXIT.unreachable).
        expect(failure).to.match(/node exited 1\b/);
        expect(failure).to.include(`the node's CouchDB user \\"${name}\\" is not a server admin (/_session lists no _admin role): settings were not checked, and CouchDB 3 lets only server admins list and create the node's databases (docs/couchdb.md)`);
        expect(failure).to.match(/node failed to start: CouchDB (refused the node's credentials|does not let the node's user do this) \(list databases\)/);
      } finally {
        const current = await fetch(userDoc, { headers });
        const { _rev: rev } = await current.json() as { _rev: string };
        expect((await fetch(`${userDoc}?rev=${rev}`, { method: 'DELETE', headers })).status).to.equal(200);
      }
    });
  });

  (onCouchDB ? it : it.skip)('a proxy in front of CouchDB that hides its configuration: the node runs and says the settings were not checked', async () => {
    // Forwards everything (with the node's own credentials) but /_node/..., as a reverse proxy
    // exposing only the database API would.
    const { url } = serverOf(TEST_COUCHDB_URL as string);
    const proxy = http.createServer((req, res) => {
      if ((req.url ?? '').startsWith('/_node/')) {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'forbidden', reason: 'not exposed' }));
        return;
      }
      const forward = http.request({ host: url.hostname, port: url.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const through = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
      through.username = url.username; through.password = url.password;
      const dataDir = tempDir();
      const node = await startTestNode({ dataDir, env: { COUCHDB_URL: through.href, DB_PREFIX: prefixFor(dataDir), INDEX_WARMING: 'off' } });
      try {
        expect(warningsIn(node.logs)).to.deep.equal(['cannot read the CouchDB configuration (GET /_node/_local/_config answered 403; a proxy in front of CouchDB?): settings were not checked (docs/couchdb.md)']);
        await addAccount(node, 'proxied', 'proxied-password-1');
        const answer = await postJson(`${node.url}/publish`, { documents: nsdlDocs(2) }, { authorization: basicAuth('proxied', 'proxied-password-1') });
        expect(answer.body.OK, JSON.stringify(answer.body).slice(0, 300)).to.equal(true);
      } finally {
        await node.stop();
      }
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  (onCouchDB ? describe : describe.skip)('a CouchDB set up neither as a single node nor as a cluster', () => {
    let couch: CouchInstance | undefined;
    // A CouchDB process of the fixture of its own (single_node = false, no cluster setup, no
    // system databases): the suite's server is set up, and must stay so.
    before(async () => {
      couch = await startCouchInstance({ COUCHDB_SINGLE_NODE: 'false', COUCHDB_CREATE_SYSTEM_DBS: 'false' });
    });
    after(async () => { await couch?.stop(); });

    it('names [couchdb] single_node and the missing system databases; the node still runs', async () => {
      const running = couch as CouchInstance;
      const membership = await getJson(`http://127.0.0.1:${running.port}/_membership`, { headers: { authorization: basicAuth('admin', 'couchdb-local-test') } });
      expect(membership.body.cluster_nodes).to.deep.equal(['couchdb@127.0.0.1']);
      const node = await startTestNode({ env: { COUCHDB_URL: running.url, DB_PREFIX: 'setup_' } });
      try {
        expect(warningsIn(node.logs), warningsIn(node.logs).join('\n')).to.include('[couchdb] single_node is false and /_membership lists no other cluster member: this CouchDB was set up neither as a single node nor as a cluster, so _users and _replicator do not exist (CouchDB logs an error about _users every few seconds, and only server admins can sign in); set [couchdb] single_node = true and restart CouchDB (docs/couchdb.md)');
        // The node needs neither database: its user is a server admin, its replications one-shot.
        expect((await getJson(`${node.url}/status`)).status).to.equal(200);
      } finally {
        await node.stop();
      }
    });
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
