/**
 * npm run account and lr-node account: the command-line account tool, against a running node and
 * against a stopped one, and its refusal of a store no node has started on; lr-node config show,
 * which reaches the store the same way.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT, startMain, exitOf, type NodeProcess } from '../support/process.js';
import { tempDir, basicAuth, postJson, getJson, startTestNode } from '../support/node.js';
import { oauthRequest } from '../support/oauth1-client.js';
import { nsdlDocs } from '../support/documents.js';
import { onCouchDB, prefixFor, storeEnv, storeEnvOf, testCouchAdmin, TEST_COUCHDB_URL } from '../support/store.js';
import { ensureBuilt, lrNode } from '../support/cli.js';
import { CLIENT_ID, CLIENT_SECRET, csrfOf, postForm, signInWithoutBrowser, startTestProvider } from '../support/oidc.js';

/** The line a store command prints first on standard error: which store it uses. */
function storeLine(command: string, dataDir: string, embedded: 'running' | 'stopped'): string {
  if (onCouchDB) return `${command}: store COUCHDB_URL ${testCouchAdmin()!.root}, DB_PREFIX ${prefixFor(dataDir)}\n`;
  return `${command}: store DATA_DIR ${dataDir} (${embedded === 'running' ? 'the running node\'s embedded store' : 'no node runs there: its embedded store started for this command'})\n`;
}

function account(env: Record<string, string>, args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/account.ts'), ...args], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...storeEnvOf(env), ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  child.stdin.end(stdin ?? '');
  return exitOf(child, 60000).then(({ code }) => ({ code, stdout, stderr }));
}

describe('npm run account', () => {
  it('adds, lists, disables and enables accounts on a running node; the password never appears', async () => {
    const dataDir = tempDir();
    const running = await startMain({ DATA_DIR: dataDir });
    try {
      const added = await account({ DATA_DIR: dataDir }, ['add', 'carol', '--password-stdin'], 'long-secret-phrase-9\n');
      expect(added.code, added.stderr).to.equal(0);
      expect(added.stdout).to.equal('account carol added (publisher)\n');
      expect(added.stderr).to.equal(storeLine('account', dataDir, 'running'));
      const docs = { documents: nsdlDocs(1) };
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(200);
      const listed = await account({ DATA_DIR: dataDir }, ['list']);
      expect(listed.stdout).to.match(/^carol\tpublisher\tenabled\tsubmitter=carol$/m);
      expect(listed.stdout + added.stdout + added.stderr).to.not.contain('long-secret-phrase-9');
      expect((await account({ DATA_DIR: dataDir }, ['disable', 'carol'])).stdout).to.equal('account carol: disabled\n');
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(401);
      await account({ DATA_DIR: dataDir }, ['enable', 'carol']);
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(200);
    } finally {
      running.child.kill('SIGTERM');
      await exitOf(running.child);
    }
  });

  it('issues OAuth 1.0 credentials (shown once) that an independent client publishes with, and revokes them', async () => {
    const dataDir = tempDir();
    const running = await startMain({ DATA_DIR: dataDir });
    try {
      await account({ DATA_DIR: dataDir }, ['add', 'olga', '--password-stdin'], 'long-secret-phrase-9\n');
      const issued = await account({ DATA_DIR: dataDir }, ['oauth', 'olga', '--label', 'publisher tool', '--json']);
      expect(issued.code, issued.stderr).to.equal(0);
      const credentials = JSON.parse(issued.stdout) as Record<string, string>;
      expect(credentials).to.have.all.keys('consumer_key', 'consumer_secret', 'token', 'token_secret');
      expect(credentials.consumer_key).to.equal('olga');
      const body = JSON.stringify({ documents: nsdlDocs(1) });
      expect((await oauthRequest({ url: `${running.url}/publish`, body, ...credentials }))[0]?.status).to.equal(200);
      expect((await account({ DATA_DIR: dataDir }, ['list'])).stdout).to.not.contain(credentials.token_secret);
      const revoked = await account({ DATA_DIR: dataDir }, ['oauth-revoke', 'olga', credentials.token as string]);
      expect(revoked.stdout).to.equal(`account olga: OAuth token ${credentials.token} revoked\n`);
      expect((await oauthRequest({ url: `${running.url}/publish`, body, ...credentials }))[0]?.status).to.equal(401);
      expect((await account({ DATA_DIR: dataDir }, ['oauth-revoke', 'olga', 'nope'])).stderr).to.contain('account olga has no OAuth token nope');
    } finally {
      running.child.kill('SIGTERM');
      await exitOf(running.child);
    }
  });

  it('works on a stopped node (on the embedded store it starts the store itself) and refuses weak passwords and bad names', async () => {
    const dataDir = tempDir();
    const once = await startMain({ DATA_DIR: dataDir });
    once.child.kill('SIGTERM');
    await exitOf(once.child);
    const weak = await account({ DATA_DIR: dataDir }, ['add', 'dave', '--password-stdin'], 'short\n');
    expect(weak.code).to.equal(1);
    expect(weak.stderr).to.equal(`${storeLine('account', dataDir, 'stopped')}account: the password must be at least 10 characters long\n`);
    const common = await account({ DATA_DIR: dataDir }, ['add', 'dave', '--password-stdin'], 'password123\n');
    expect(common.code).to.equal(1);
    expect(common.stderr).to.match(/account: the password is too easy to guess/);
    const bad = await account({ DATA_DIR: dataDir }, ['add', 'no spaces'], '');
    expect(bad.stderr).to.match(/^account: give an account name/);
    const ok = await account({ DATA_DIR: dataDir }, ['add', 'ops', '--role', 'network_admin', '--password-stdin'], 'long-admin-phrase-7\n');
    expect(ok.stdout).to.equal('account ops added (network_admin)\n');
    const again = await account({ DATA_DIR: dataDir }, ['add', 'ops', '--password-stdin'], 'long-admin-phrase-7\n');
    expect(again.stderr).to.equal(`${storeLine('account', dataDir, 'stopped')}account: account ops exists already\n`);
  });
});

describe('lr-node account: only on a store a node has started on', function () {
  this.timeout(120000);
  before(ensureBuilt);
  const actions = [['add', 'envuser', '--password-stdin'], ['list'], ['passwd', 'envuser', '--password-stdin'], ['disable', 'envuser'], ['enable', 'envuser'], ['remove', 'envuser']];
  const startFirst = 'a new node\'s store and databases are created by its first start (lr-node start), not by this command\n';

  it('without DATA_DIR (./data) or with a DATA_DIR no node has run on, every account command refuses (exit 1) naming the absolute directory, and creates nothing', async () => {
    const cwd = tempDir();
    for (const args of actions) {
      const run = await lrNode(['account', ...args], { cwd, stdin: 'long-enough-phrase-1\n' });
      expect(run.code, args[0]).to.equal(1);
      expect(run.stderr, args[0]).to.equal(`configuration error: DATA_DIR: no node has run on ${path.join(fs.realpathSync(cwd), 'data')} (it holds no embedded store): set DATA_DIR to the node's data directory, or COUCHDB_URL (and DB_PREFIX) to its CouchDB; ${startFirst}`);
      expect(run.stdout, args[0]).to.equal('');
    }
    expect(fs.readdirSync(cwd), 'no ./data').to.deep.equal([]);
    const empty = tempDir();
    const inEmpty = await lrNode(['account', 'add', 'envuser', '--password-stdin'], { cwd, env: { DATA_DIR: empty }, stdin: 'long-enough-phrase-1\n' });
    expect(inEmpty.code).to.equal(1);
    // On the CouchDB suite a test's DATA_DIR stands for its own database prefix, where no node has run either.
    expect(inEmpty.stderr).to.match(onCouchDB ? /^configuration error: COUCHDB_URL: COUCHDB_URL \S+ holds no node with DB_PREFIX / : new RegExp(`^configuration error: DATA_DIR: no node has run on ${empty} `));
    expect(fs.readdirSync(empty)).to.deep.equal([]);
    const destination = await lrNode(['destination', 'list'], { cwd });
    expect(destination.code).to.equal(1);
    expect(destination.stderr).to.contain(`no node has run on ${path.join(fs.realpathSync(cwd), 'data')}`);
  });

  it('refuses a store without the node\'s databases (another DB_PREFIX), naming the store and the prefix, never its credentials', async () => {
    const dataDir = tempDir();
    const running = await startMain({ DATA_DIR: dataDir });
    try {
      for (const args of actions) {
        const run = await lrNode(['account', ...args], { env: { DATA_DIR: dataDir, DB_PREFIX: 'elsewhere_' }, stdin: 'long-enough-phrase-1\n' });
        expect(run.code, args[0]).to.equal(1);
        const location = storeLine('account', dataDir, 'running').replace(/^account: store /, '').replace(/, DB_PREFIX .*\n$|\n$/, '');
        const setting = onCouchDB ? 'COUCHDB_URL' : 'DATA_DIR';
        expect(run.stderr, args[0]).to.equal(`configuration error: ${setting}: ${location} holds no node with DB_PREFIX "elsewhere_" (no database elsewhere_resource_data, elsewhere_incoming, elsewhere_node, elsewhere_community, elsewhere_network, elsewhere_accounts): set ${setting} and DB_PREFIX to the node's; ${startFirst}`);
      }
      const listed = await lrNode(['account', 'list'], { env: { DATA_DIR: dataDir } });
      expect(listed.code, listed.stderr).to.equal(0);
      expect(listed.stderr).to.equal(storeLine('account', dataDir, 'running'));
    } finally {
      running.child.kill('SIGTERM');
      await exitOf(running.child);
    }
  });
});

describe('lr-node account remove', function () {
  this.timeout(180000);
  before(ensureBuilt);
  const STRONG = 'correct horse battery 42';

  it('removes an account: its password, bearer tokens and /auth session are refused at once by every node process; its documents stay', async () => {
    const provider = await startTestProvider();
    const dataDir = tempDir();
    const oidc = { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET };
    const processes = [await startMain({ DATA_DIR: dataDir, ...oidc })];
    try {
      // On CouchDB a second process serves the same databases (docs/scaling.md); an embedded store serves one.
      if (onCouchDB) processes.push(await startMain({ DATA_DIR: tempDir(), ...storeEnv(dataDir), ...oidc }));
      const [first] = processes as [NodeProcess];
      await provider.register(`${first.url}/auth/callback`);
      const added = await lrNode(['account', 'add', 'carol', '--password-stdin'], { env: { DATA_DIR: dataDir }, stdin: 'long-secret-phrase-9\n' });
      expect(added.code, added.stderr).to.equal(0);
      // A web account with a publishing password, a bearer token and a session.
      const { jar } = await signInWithoutBrowser(first.url, 'gina');
      const csrf = await csrfOf(jar, first.url);
      expect((await postForm(jar, `${first.url}/auth/password`, { csrf, password: STRONG, confirmation: STRONG })).status).to.equal(200);
      const token = /id="new-token">([^<]+)</.exec((await postForm(jar, `${first.url}/auth/tokens`, { csrf, label: 'tool' })).text)?.[1] ?? '';
      const session = jar.get('lr_auth') ?? '';
      const credentials = {
        'carol (Basic)': basicAuth('carol', 'long-secret-phrase-9'),
        'gina (Basic)': basicAuth('gina@example.org', STRONG),
        'gina (bearer token)': `Bearer ${token}`,
      };
      const published: string[] = [];
      for (const node of processes) {
        for (const [who, authorization] of Object.entries(credentials)) {
          const { status, body } = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization });
          expect(status, who).to.equal(200);
          published.push(...(body.document_results as { doc_ID: string }[]).map((result) => result.doc_ID));
        }
        jar.set('lr_auth', session);
        expect(await (await jar.fetch(`${node.url}/auth`)).text()).to.contain('gina@example.org');
      }

      for (const name of ['carol', 'gina@example.org']) {
        const removed = await lrNode(['account', 'remove', name], { env: { DATA_DIR: dataDir } });
        expect(removed.code, removed.stderr).to.equal(0);
        expect(removed.stdout).to.equal(`account ${name} removed (the documents it published stay)\n`);
        expect(removed.stderr).to.equal(storeLine('account', dataDir, 'running'));
      }
      for (const node of processes) {
        for (const [who, authorization] of Object.entries(credentials)) {
          const { status, body, headers } = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization });
          expect({ status, body }, who).to.deep.equal({ status: 401, body: { OK: false, error: 'publish needs the credentials of an account of this node holding the role publisher (HTTP Basic, a bearer token from /auth, or an OAuth 1.0 signature)' } });
          expect(headers.get('www-authenticate'), who).to.match(/^Basic /);
        }
        jar.set('lr_auth', session);
        const page = await jar.fetch(`${node.url}/auth`);
        expect(await page.text()).to.contain('Your account no longer exists on this node').and.contain('href="/auth/login"');
        jar.set('lr_auth', session);
        const change = await postForm(jar, `${node.url}/auth/tokens`, { csrf, label: 'after removal' });
        expect(change.status).to.equal(403);
        expect(change.text).to.contain('Your account no longer exists on this node');
        for (const id of published) {
          const obtained = await getJson(`${node.url}/obtain?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
          expect((obtained.body.documents as { document: unknown }[])[0]?.document, id).to.not.equal(null);
        }
      }
      const listed = await lrNode(['account', 'list'], { env: { DATA_DIR: dataDir } });
      expect(listed.stdout).to.equal('');
    } finally {
      for (const node of processes) {
        node.child.kill('SIGTERM');
        await exitOf(node.child);
      }
      await provider.close();
    }
  });

  it('refuses an unknown account name (exit 1) and a bad one (exit 2)', async () => {
    const dataDir = tempDir();
    const once = await startMain({ DATA_DIR: dataDir });
    once.child.kill('SIGTERM');
    await exitOf(once.child);
    const unknown = await lrNode(['account', 'remove', 'nobody'], { env: { DATA_DIR: dataDir } });
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal(`${storeLine('account', dataDir, 'stopped')}account: no account nobody\n`);
    expect(unknown.stdout).to.equal('');
    const bad = await lrNode(['account', 'remove', 'no spaces'], { env: { DATA_DIR: dataDir } });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/^account: give an account name/);
  });
});

// The suite's CouchDB requires credentials (require_valid_user, and CouchDB 3 lets only server
// admins list databases). The commands said "CouchDB refused the node's credentials (list
// databases)" when none were given, and not what to set.
describe('lr-node config show', function () {
  this.timeout(120000);
  before(ensureBuilt);

  it('prints the CONFIG kept in the node database as JSON, which starts the node as CONFIG=FILE; says when none is kept (exit 1)', async () => {
    const dataDir = tempDir();
    let node = await startTestNode({ dataDir });
    try {
      // A first start without CONFIG keeps the defaults, as CONFIG=defaults does.
      const defaults = await lrNode(['config', 'show'], { env: { DATA_DIR: dataDir } });
      expect({ code: defaults.code, stdout: defaults.stdout }).to.deep.equal({ code: 0, stdout: '{}\n' });
      // A store an earlier version started keeps none.
      const nodeDb = node.couch.use(node.names.node);
      await nodeDb.destroy('node_config', (await nodeDb.get('node_config'))._rev);
    } finally {
      await node.stop();
    }
    const none = await lrNode(['config', 'show'], { env: { DATA_DIR: dataDir } });
    expect({ code: none.code, stdout: none.stdout, stderr: none.stderr }).to.deep.equal({ code: 1, stdout: '', stderr: `${storeLine('config', dataDir, 'stopped')}config: no CONFIG is kept in the node database: no start of this node was given CONFIG=FILE or CONFIG=defaults since its upgrade to a version that keeps one, and a start without CONFIG applies the defaults\n` });
    const given = { node: { node_name: 'Shown' }, services: { harvest: { service_data: { doc_limit: 5 } } } };
    const publicUrl = 'http://shown.example.org'; // the same at both starts, which bind other ports
    node = await startTestNode({ dataDir, nodeConfig: given, env: { PUBLIC_URL: publicUrl } });
    try {
      const shown = await lrNode(['config', 'show'], { env: { DATA_DIR: dataDir } });
      expect({ code: shown.code, stderr: shown.stderr }).to.deep.equal({ code: 0, stderr: storeLine('config', dataDir, 'running') });
      expect(shown.stdout).to.equal(`${JSON.stringify(given, null, 2)}\n`);
      fs.writeFileSync(path.join(dataDir, 'shown.json'), shown.stdout);
    } finally {
      await node.stop();
    }
    node = await startTestNode({ dataDir, env: { PUBLIC_URL: publicUrl, CONFIG: path.join(dataDir, 'shown.json') } });
    try {
      expect((await getJson(`${node.url}/status`)).body.node_name).to.equal('Shown');
      expect(node.logs.filter((line) => line.includes('this start changed node documents'))).to.deep.equal([]);
    } finally {
      await node.stop();
    }
    const stopped = await lrNode(['config', 'show'], { env: { DATA_DIR: dataDir } });
    expect({ code: stopped.code, stdout: JSON.parse(stopped.stdout) as unknown, stderr: stopped.stderr }).to.deep.equal({ code: 0, stdout: given, stderr: storeLine('config', dataDir, 'stopped') });
  });
});

(onCouchDB ? describe : describe.skip)('lr-node account and destination against a CouchDB URL without credentials', function () {
  this.timeout(120000);
  before(ensureBuilt);

  it('say that no credentials were given and what to set (exit 1), and never print a credential', async () => {
    const { root } = testCouchAdmin()!;
    const admin = new URL(TEST_COUCHDB_URL!);
    const expected = `configuration error: COUCHDB_URL: no credentials given: set COUCHDB_USER/COUCHDB_PASSWORD or put them in COUCHDB_URL, the node's own (CouchDB at ${root} answered 401 "You are not a server admin.": CouchDB 3 lets only server admins use the node's databases)\n`;
    for (const args of [['account', 'add', 'x', '--password-stdin'], ['account', 'list'], ['destination', 'list']]) {
      const run = await lrNode(args, { env: { COUCHDB_URL: root, DB_PREFIX: 'anything_' }, stdin: 'long-enough-phrase-1\n' });
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }, args.join(' ')).to.deep.equal({ code: 1, stdout: '', stderr: expected });
      expect(run.stderr).to.not.contain(decodeURIComponent(admin.password));
    }
  });

  it('say that the credentials given were refused, without printing them', async () => {
    // A user CouchDB does not have: wrong passwords of the suite's admin would lock it out of
    // CouchDB 3.4+ for minutes ([chttpd_auth_lockout], per user and address), failing every test.
    const password = `not-a-password-${Date.now()}`;
    const url = new URL(testCouchAdmin()!.root);
    url.username = 'lr-node-test-no-such-user';
    url.password = password;
    const settings: Record<string, string>[] = [{ COUCHDB_URL: url.href }, { COUCHDB_URL: testCouchAdmin()!.root, COUCHDB_USER: 'lr-node-test-no-such-user', COUCHDB_PASSWORD: password }];
    for (const env of settings) {
      const run = await lrNode(['account', 'list'], { env });
      expect(run.code).to.equal(1);
      // 403 once CouchDB's lockout has counted this user's failures of earlier runs.
      expect(run.stderr).to.match(new RegExp(`^configuration error: COUCHDB_URL: the credentials given in COUCHDB_URL or COUCHDB_USER/COUCHDB_PASSWORD were refused \\(CouchDB at ${testCouchAdmin()!.root.replace(/[.]/g, '\\.')} answered 40[13] "[^"]+"\\): set the node's own, a server admin's\\n$`));
      expect(run.stderr).to.not.contain(password).and.not.contain('lr-node-test-no-such-user');
    }
  });
});
