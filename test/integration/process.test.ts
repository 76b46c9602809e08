/** The node as a process: configuration errors fail fast, signals stop it gracefully. */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { runMain, startMain, exitOf, waitForLog, type NodeProcess } from '../support/process.js';
import { currentStatus, getJson, tempDir } from '../support/node.js';
import { onCouchDB, TEST_COUCHDB_URL } from '../support/store.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { ensureBuilt, lrNode } from '../support/cli.js';

/** Runs `use` while a port is held by another listener (for the "in use" exits). */
async function withHeldPort(use: (port: number) => Promise<void>): Promise<void> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    await use((holder.address() as net.AddressInfo).port);
  } finally {
    holder.close();
  }
}

async function failingStart(env: Record<string, string>, timeoutMs = 30000): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = runMain(env);
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  const { code } = await exitOf(child, timeoutMs);
  return { code, stderr: stderr.trim(), stdout };
}

/** A server answering as Apache CouchDB 3.5 does to a client without credentials: its welcome and an anonymous /_session, 401 to the rest. */
async function withAnonymousCouch(use: (url: string) => Promise<void>): Promise<void> {
  const couch = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const [status, body] = path === '/' ? [200, { couchdb: 'Welcome', version: '3.5.0', vendor: { name: 'The Apache Software Foundation' } }]
      : path === '/_session' ? [200, { ok: true, userCtx: { name: null, roles: [] } }]
        : [401, { error: 'unauthorized', reason: 'You are not a server admin.' }];
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => couch.listen(0, '127.0.0.1', resolve));
  try {
    await use(`http://127.0.0.1:${(couch.address() as net.AddressInfo).port}`);
  } finally {
    couch.closeAllConnections();
    await new Promise((resolve) => couch.close(resolve));
  }
}

describe('configuration errors stop the node with a one-line message naming the setting', () => {
  it('PORT=abc', async () => {
    const { code, stderr } = await failingStart({ PORT: 'abc', DATA_DIR: tempDir() });
    expect(code).to.equal(1);
    expect(stderr.split('\n')).to.have.length(1);
    expect(stderr).to.equal('configuration error: PORT: must be a port number 0-65535, got "abc"');
  });

  it('COUCHDB_URL that is not a URL', async () => {
    const { code, stderr } = await failingStart({ COUCHDB_URL: 'not a url' });
    expect(code).to.equal(1);
    expect(stderr).to.match(/^configuration error: COUCHDB_URL: /);
  });

  it('LOG_LEVEL=loud', async () => {
    const { stderr } = await failingStart({ LOG_LEVEL: 'loud' });
    expect(stderr).to.match(/^configuration error: LOG_LEVEL: must be one of/);
  });

  it('CONFIG naming a missing file', async () => {
    const { code, stderr } = await failingStart({ CONFIG: '/nonexistent/lr.json' });
    expect(code).to.equal(1);
    expect(stderr).to.equal('configuration error: CONFIG: cannot read /nonexistent/lr.json: ENOENT');
  });

  it('CONFIG that is not JSON', async () => {
    const file = path.join(tempDir(), 'bad.json');
    fs.writeFileSync(file, '{ nope');
    const { stderr } = await failingStart({ CONFIG: file });
    expect(stderr).to.match(/^configuration error: CONFIG: .*is not valid JSON/);
  });

  it('CONFIG with a wrong value names its path', async () => {
    const file = path.join(tempDir(), 'bad-value.json');
    fs.writeFileSync(file, JSON.stringify({ policy: { deleted_data_policy: 'maybe' } }));
    const { stderr } = await failingStart({ CONFIG: file });
    expect(stderr).to.contain('/policy/deleted_data_policy');
    expect(stderr).to.contain('must be equal to one of the allowed values');
  });

  it('CONFIG with service_key true, or service_https true without an https PUBLIC_URL: requirements nothing would enforce', async () => {
    // Both were advertised in the service descriptions while plain HTTP, and no key, were served (an audit's finding).
    const keyed = path.join(tempDir(), 'service-key.json');
    fs.writeFileSync(keyed, JSON.stringify({ services: { publish: { service_auth: { service_key: true } } } }));
    expect((await failingStart({ CONFIG: keyed })).stderr).to.equal(`configuration error: CONFIG ${keyed} /services/publish/service_auth/service_key: must be false, got true (this node takes no access key: service_authz says which credentials a service takes)`);
    const https = path.join(tempDir(), 'service-https.json');
    fs.writeFileSync(https, JSON.stringify({ services: { obtain: { service_auth: { service_https: true } } } }));
    const { code, stderr } = await failingStart({ CONFIG: https, PUBLIC_URL: 'http://lr.example.org' });
    expect(code).to.equal(1);
    expect(stderr).to.equal(`configuration error: CONFIG ${https} /services/obtain/service_auth/service_https: true needs an https PUBLIC_URL (the endpoint clients reach through the TLS proxy in front of the node), got http://lr.example.org`);
  });

  it('CONFIG with an unknown key', async () => {
    const file = path.join(tempDir(), 'unknown.json');
    fs.writeFileSync(file, JSON.stringify({ node: { nmae: 'typo' } }));
    const { stderr } = await failingStart({ CONFIG: file });
    expect(stderr).to.contain('/node');
    expect(stderr).to.contain('must NOT have additional properties');
  });

  it('CONFIG with a filter pattern the filter cannot compile (every publish was then "rejected by filter")', async () => {
    const file = path.join(tempDir(), 'filter.json');
    fs.writeFileSync(file, JSON.stringify({ filter: { filter: [{ filter_key: 'keys', filter_value: '(' }] } }));
    const { code, stderr } = await failingStart({ CONFIG: file });
    expect(code).to.equal(EXIT.failure);
    expect(stderr).to.equal(`configuration error: CONFIG ${file} /filter/filter/0/filter_value: must be a regular expression the filter can compile, got "(": Invalid regular expression: /(/: Unterminated group`);
  });

  it('CONFIG with an unknown service_data key (it was advertised and ignored)', async () => {
    const file = path.join(tempDir(), 'service-data.json');
    fs.writeFileSync(file, JSON.stringify({ services: { obtain: { service_data: { doc_limt: 5 } } } }));
    const { code, stderr } = await failingStart({ CONFIG: file });
    expect(code).to.equal(EXIT.failure);
    expect(stderr).to.equal(`configuration error: CONFIG ${file} /services/obtain/service_data: must NOT have additional properties: "doc_limt" is not a setting here (known: doc_limit, id_limit, spec_kv_only, flow_control, msg_size_limit, request_id_limit, id_length_limit)`);
  });

  it('HOST and DATA_DIR that cannot be used are named, with why (not only the errno)', async () => {
    expect((await failingStart({ HOST: 'no-such-host.invalid', DATA_DIR: tempDir() })).stderr).to.equal('configuration error: HOST: cannot listen on no-such-host.invalid: the name does not resolve');
    if (onCouchDB) return; // the embedded store's directory: on CouchDB the node keeps nothing there
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, '');
    const { code, stderr } = await failingStart({ DATA_DIR: file });
    expect(code).to.equal(EXIT.failure);
    expect(stderr).to.equal(`configuration error: DATA_DIR: cannot use ${file} as the data directory: a file is in the way`);
  });

  (onCouchDB ? it.skip : it)('EMBEDDED_COUCH_PORT in use is named (the reason was empty)', async () => {
    await withHeldPort(async (port) => {
      const { code, stderr } = await failingStart({ EMBEDDED_COUCH_PORT: String(port), DATA_DIR: tempDir() });
      expect(code).to.equal(EXIT.portInUse);
      expect(stderr).to.equal(`node failed to start: embedded store failed to start (exit 5): listen EADDRINUSE: address already in use 127.0.0.1:${port} (EMBEDDED_COUCH_PORT)`);
    });
  });

  it('COUCHDB_URL with wrong credentials: a readable message, not a stack', async () => {
    // A real server to refuse the credentials: the suite's CouchDB, or the embedded store of a running node.
    const running = onCouchDB ? undefined : await startMain({ DATA_DIR: tempDir() });
    try {
      const storeUrl = new URL(TEST_COUCHDB_URL ?? `http://127.0.0.1:${(JSON.parse(running?.output().split('\n').find((line) => line.includes('embedded store listening')) ?? '{}') as { port?: number }).port}`);
      const { code, stderr } = await failingStart({ COUCHDB_URL: `http://wrong:creds@${storeUrl.host}` });
      expect(code).to.equal(1);
      expect(stderr).to.equal(`node failed to start: CouchDB at http://${storeUrl.host} refused the node's credentials (COUCHDB_URL / COUCHDB_USER / COUCHDB_PASSWORD)`);
      expect(stderr).to.not.contain('creds');
      // No credentials at all: say so, not that CouchDB refused some. (The embedded store asks
      // for credentials at once; the suite's CouchDB may take the node for an anonymous user.)
      const none = await failingStart({ COUCHDB_URL: `http://${storeUrl.host}` });
      expect(none.code).to.equal(1);
      expect(none.stderr).to.match(/^node failed to start: no credentials given: set COUCHDB_USER\/COUCHDB_PASSWORD or put them in COUCHDB_URL \(/);
      expect(none.stdout).to.not.contain('server admin');
    } finally {
      running?.child.kill('SIGTERM');
      if (running) await exitOf(running.child);
    }
  });
});

describe('start-up names what it is about', () => {
  it('a CouchDB that takes the node for an anonymous user: no credentials given, and no warning about a user', async () => {
    await withAnonymousCouch(async (url) => {
      const { code, stderr, stdout } = await failingStart({ COUCHDB_URL: url, DATA_DIR: tempDir() });
      expect(code).to.equal(EXIT.failure);
      expect(stderr).to.equal('node failed to start: no credentials given: set COUCHDB_USER/COUCHDB_PASSWORD or put them in COUCHDB_URL (CouchDB 3 lets only server admins list and create the node\'s databases)');
      expect(stdout).to.not.contain('server admin');
    });
  });

  it('a CouchDB that does not answer is named, without its credentials, while waiting and when start-up gives up', async function () {
    this.timeout(120000);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { code, stderr, stdout } = await failingStart({ COUCHDB_URL: `http://admin:Secret-Pw-4@127.0.0.1:${port}`, DATA_DIR: tempDir() }, 90000);
    expect(code).to.equal(EXIT.unreachable);
    expect(stderr).to.equal(`node failed to start: CouchDB at http://127.0.0.1:${port} (COUCHDB_URL) did not answer within 30 s`);
    const waiting = stdout.split('\n').filter((line) => line.includes('"msg":"waiting for CouchDB"')).map((line) => JSON.parse(line) as { store?: string });
    expect(waiting).to.not.deep.equal([]);
    expect(waiting[0]?.store).to.equal(`http://127.0.0.1:${port}`);
    expect(stdout + stderr).to.not.contain('Secret-Pw-4');
  });
});

describe('exit codes of the node process (src/errors/exit-codes.ts)', () => {
  it('PORT in use: exits with EXIT.portInUse and one line naming the port', async () => {
    await withHeldPort(async (port) => {
      const { code, stderr } = await failingStart({ PORT: String(port), DATA_DIR: tempDir() });
      expect(code).to.equal(EXIT.portInUse);
      expect(stderr).to.equal(`node failed to start: listen EADDRINUSE: address already in use 127.0.0.1:${port} (PORT)`);
    });
  });

  (onCouchDB ? it.skip : it)('a second node on the DATA_DIR of a running one stops at once with one line, leaving the first untouched', async () => {
    const dataDir = tempDir();
    const first = await startMain({ DATA_DIR: dataDir });
    try {
      const storeFile = fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8');
      const started = Date.now();
      const { code, stderr } = await failingStart({ DATA_DIR: dataDir });
      expect(Date.now() - started, 'at once, not after the store crash-looped on its lock for 30 s').to.be.below(15000);
      expect(code).to.equal(EXIT.failure);
      expect(stderr).to.match(new RegExp(`^configuration error: DATA_DIR: ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by a running node \\(its embedded store answers at http://127\\.0\\.0\\.1:\\d+\\); stop that node, or give this one a DATA_DIR of its own$`));
      // The tools (lr-node account) still find the running node's store.
      expect(fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8')).to.equal(storeFile);
      expect((await currentStatus(first.url)).OK).to.equal(true);
    } finally {
      first.child.kill('SIGTERM');
      await exitOf(first.child);
    }
  });

  it('MONITORING_PORT in use: exits with EXIT.portInUse too, leaving nothing running (it stayed up, serving nothing)', async () => {
    await withHeldPort(async (port) => {
      const { code, stderr } = await failingStart({ PORT: '0', MONITORING_PORT: String(port), DATA_DIR: tempDir() });
      expect(code).to.equal(EXIT.portInUse);
      expect(stderr).to.equal(`node failed to start: listen EADDRINUSE: address already in use 127.0.0.1:${port} (MONITORING_PORT)`);
      // `lr-node start` sets the exit code and lets the process end by itself: it must have nothing left running.
      ensureBuilt();
      const cli = await lrNode(['start'], { env: { PORT: '0', MONITORING_PORT: String(port), DATA_DIR: tempDir() }, timeoutMs: 60000 });
      expect(cli.code).to.equal(EXIT.portInUse);
      expect(cli.stderr.trim()).to.equal(`start: listen EADDRINUSE: address already in use 127.0.0.1:${port} (MONITORING_PORT)`);
    });
  });
});

describe('graceful shutdown', () => {
  it('Ctrl-C at a terminal (SIGINT to the whole process group) stops the node once, without restarting its store', async () => {
    const running = await startMain({ DATA_DIR: tempDir() }, [], 60000, true);
    process.kill(-(running.child.pid as number), 'SIGINT');
    const { code } = await exitOf(running.child);
    expect(code).to.equal(0);
    expect(running.output()).to.contain('"msg":"node stopped"');
    expect(running.output()).to.not.contain('embedded store exited; restarting');
    expect(running.output()).to.not.contain('restart failed');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: stops accepting, stops the embedded store (none is started on CouchDB), exits 0`, async () => {
      const running = await startMain({ DATA_DIR: tempDir() });
      expect((await fetch(`${running.url}/status`)).status).to.equal(200);
      if (onCouchDB) expect(running.embeddedPid, 'an embedded store beside a configured CouchDB').to.equal(undefined);
      else expect(running.embeddedPid).to.be.a('number');
      running.child.kill(signal);
      const { code } = await exitOf(running.child);
      expect(code).to.equal(0);
      expect(running.output()).to.contain('"msg":"node stopped"');
      if (!onCouchDB) expect(() => process.kill(running.embeddedPid as number, 0)).to.throw(); // the store process is gone
      let refused = false;
      try { await fetch(`${running.url}/status`); } catch { refused = true; }
      expect(refused).to.equal(true);
    });
  }
});

/** Starts the node, runs `check` on it, and stops it whatever happens. */
async function withStarted(env: Record<string, string>, args: string[], check: (node: Awaited<ReturnType<typeof startMain>>) => Promise<void>): Promise<void> {
  const node = await startMain(env, args);
  try {
    await check(node);
  } finally {
    node.child.kill('SIGTERM');
    await exitOf(node.child);
  }
}

describe('a start without CONFIG applies the CONFIG an earlier start was given', () => {
  type Logged = { level: number; msg: string; changed?: string[] };
  const logged = (node: NodeProcess, about: string): Logged[] => node.output().split('\n')
    .filter((line) => line.startsWith('{') && line.includes(about)).map((line) => JSON.parse(line) as Logged);
  const shown = async (node: NodeProcess): Promise<{ name: unknown; anonymous: unknown; harvest: unknown }> => {
    const description = (await getJson(`${node.url}/description`)).body as { node_name: unknown; node_policy: { accept_anonymous: unknown } };
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: { doc_limit: unknown; id_limit: unknown } }[];
    const harvest = services.find((service) => service.service_name === 'Basic Harvest')?.service_data;
    return { name: description.node_name, anonymous: description.node_policy.accept_anonymous, harvest: [harvest?.doc_limit, harvest?.id_limit] };
  };
  const DEFAULTS = { name: 'Learning Registry node', anonymous: true, harvest: [100, 100] };

  it('until CONFIG=defaults resets it (saying what changed); a new store takes the defaults', async function () {
    this.timeout(180000);
    const dataDir = tempDir();
    const file = path.join(dataDir, 'node-config.json');
    fs.writeFileSync(file, JSON.stringify({ node: { node_name: 'Configured' }, policy: { accept_anonymous: false }, services: { harvest: { service_data: { doc_limit: 3, id_limit: 7 } } }, filter: { filter: [{ filter_key: 'keys', filter_value: '.' }] } }));
    const configured = { name: 'Configured', anonymous: false, harvest: [3, 7] };
    // One PUBLIC_URL for every start (PORT is 0): the endpoints it puts in the descriptions stay the same.
    const env = { DATA_DIR: dataDir, PUBLIC_URL: 'http://lr.example.org' };
    await withStarted(env, [], async (node) => {
      expect(await shown(node)).to.deep.equal(DEFAULTS);
      expect(logged(node, 'no node has started on this store: the default configuration applies').map((entry) => entry.level)).to.deep.equal([30]);
    });
    await withStarted({ ...env, CONFIG: file }, [], async (node) => {
      expect(await shown(node)).to.deep.equal(configured);
    });
    await withStarted(env, [], async (node) => {
      expect(await shown(node)).to.deep.equal(configured);
      const kept = logged(node, 'CONFIG is unset');
      expect(kept.map(({ level, msg }) => ({ level, msg }))).to.deep.equal([{ level: 30, msg: 'CONFIG is unset: the node applies the CONFIG an earlier start was given (kept in the node database); start it with CONFIG=FILE to change it, or CONFIG=defaults to reset it to the defaults' }]);
      expect(logged(node, 'this start changed node documents'), 'the stored documents are written back as they were').to.deep.equal([]);
    });
    await withStarted({ ...env, CONFIG: 'defaults' }, [], async (node) => {
      expect(await shown(node)).to.deep.equal(DEFAULTS);
      const [warning, ...more] = logged(node, 'this start changed node documents');
      expect(more).to.deep.equal([]);
      expect(warning?.level).to.equal(40);
      expect(warning?.changed).to.have.members(['node_description', 'access:Basic Harvest service', 'filter_description']);
    });
  });
});

describe('npm start -- --sample-data', () => {
  const withSampleStart = (env: Record<string, string>, check: (node: NodeProcess) => Promise<void>): Promise<void> => withStarted(env, ['--sample-data'], check);

  it('publishes the NSDL corpus once, and not again at the next start', async () => {
    const dataDir = tempDir();
    await withSampleStart({ DATA_DIR: dataDir }, async (first) => {
      expect(await waitForLog(first, 'sample data')).to.include({ published: 100, skipped: false });
      const status = await currentStatus(first.url);
      expect(status.doc_count).to.equal(100);
    });
    await withSampleStart({ DATA_DIR: dataDir }, async (second) => {
      expect(await waitForLog(second, 'sample data')).to.include({ published: 0, skipped: true });
      const status = await currentStatus(second.url);
      expect(status.doc_count).to.equal(100);
    });
  });

  it('says so when the policy refuses the samples (their signatures sign an empty text), and loads them at a later start', async () => {
    const dataDir = tempDir();
    const config = path.join(dataDir, 'verify.json');
    fs.writeFileSync(config, JSON.stringify({ policy: { verify_signatures: true } }));
    await withSampleStart({ DATA_DIR: dataDir, CONFIG: config }, async (strict) => {
      const refused = await waitForLog(strict, 'sample data: this node\'s policy refused some documents');
      expect(refused).to.include({ published: 0, refused: 100, skipped: false, level: 40 });
      expect(refused.first_refusal).to.be.a('string');
    });
    // A start without CONFIG would keep the strict policy stored by the first one.
    await withSampleStart({ DATA_DIR: dataDir, CONFIG: 'defaults' }, async (open) => {
      expect(await waitForLog(open, 'sample data')).to.include({ published: 100, skipped: false });
    });
  });
});
