/**
 * Secrets on disk and in memory (issue 14, defect 6): with a DATA_DIR an operator created with
 * wide modes, every secret-bearing file is 0600 in 0700 directories, and the store child's
 * environment never holds its admin password (it arrives over IPC), nor the node's own settings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode, tempDir, getJson, type TestNode } from '../support/node.js';

const mode = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

describe('embedded store secrets', () => {
  let node: TestNode;
  let dataDir: string;
  before(async () => {
    dataDir = path.join(tempDir(), 'operator-made');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    // The embedded store's own secrets: this node always runs one (an empty COUCHDB_URL is
    // unset), also when the suite runs on CouchDB. The canary stands for the node's own secret
    // settings (OIDC_CLIENT_SECRET, COUCHDB_PASSWORD), which the child must not inherit.
    process.env.LR_TEST_SECRET_CANARY = 'canary-secret-4f2a';
    node = await startTestNode({ dataDir, env: { COUCHDB_URL: '' } });
  });
  after(async () => {
    delete process.env.LR_TEST_SECRET_CANARY;
    await node.stop();
  });

  it('DATA_DIR and the store directory are 0700, the credential and the hashed-password config 0600', async () => {
    expect((await getJson(`${node.url}/status`)).status).to.equal(200);
    expect(mode(dataDir)).to.equal('700');
    expect(mode(path.join(dataDir, 'store'))).to.equal('700');
    expect(mode(path.join(dataDir, 'embedded-admin.json'))).to.equal('600');
    const config = path.join(dataDir, 'express-pouchdb.json');
    expect(mode(config)).to.equal('600');
    // express-pouchdb rewrites the file with the password hashed: still 0600 afterwards.
    expect(fs.readFileSync(config, 'utf8')).to.match(/-pbkdf2-/);
    for (const entry of fs.readdirSync(path.join(dataDir, 'store'))) {
      const full = path.join(dataDir, 'store', entry);
      expect(mode(full), entry).to.equal(fs.statSync(full).isDirectory() ? '700' : '600');
    }
  });

  it('the store child does not hold the admin password in its environment', () => {
    const pid = node.embedded?.pid;
    expect(pid).to.be.a('number');
    const { password } = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-admin.json'), 'utf8')) as { password: string };
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(environ).to.not.include(password);
    expect(environ).to.not.include('EMBEDDED_COUCH_SETTINGS');
    // Only what a Node process needs: none of the node's settings (src/embedded/supervisor.ts, childEnvironment).
    expect(environ).to.not.include('canary-secret-4f2a');
    expect(environ.split('\0').filter(Boolean).map((entry) => entry.split('=')[0])).to.include('PATH');
  });
});
