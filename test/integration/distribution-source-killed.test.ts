/**
 * The source node is killed (SIGKILL) during a distribution run, then started again on the same
 * data. On the embedded store one node process alone uses the store (DATA_DIR), so the lease the
 * dead run left is released at start, the dead run recorded as aborted, and a new run starts at
 * once; on CouchDB other processes may share the store, and the lease stands until it expires
 * (lease-repository.ts; the run that takes it over then records the dead one: distribution-lease.test.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startMain, exitOf, type NodeProcess } from '../support/process.js';
import { basicAuth, getJson, postJson, tempDir } from '../support/node.js';
import { onCouchDB, storeEnv } from '../support/store.js';
import { nsdlDocs } from '../support/documents.js';
import { waitFor } from '../support/network.js';
import { loadSettings } from '../../src/config/settings.js';
import { connectForTool } from '../../src/cli/store-connection.js';
import { databaseNames } from '../../src/storage/databases.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { createAccount } from '../../src/services/auth/accounts.service.js';

const ADMIN = { authorization: basicAuth('ops', 'long-admin-phrase-7') };

describe('a source node killed during a distribution run', function () {
  this.timeout(180000);
  const dataDir = tempDir('lr-source-killed-');
  let node: NodeProcess | undefined;
  let reached!: () => void;
  const atDestination = new Promise<void>((resolve) => { reached = resolve; });
  // A destination that never answers GET /destination: the run is in progress until the node dies.
  const destination = http.createServer(() => reached());
  let destinationUrl = '';
  let env: Record<string, string>;

  before(async () => {
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
    const config = path.join(dataDir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({
      connections: [{ destination_node_url: destinationUrl }],
      services: { publish: { service_auth: { service_authz: ['none'] } } },
    }));
    env = { DATA_DIR: dataDir, CONFIG: config };
    node = await startMain(env);
    const store = await connectForTool(loadSettings({ DATA_DIR: dataDir, ...storeEnv(dataDir) }));
    try {
      await createAccount(new AccountRepository(store.couch, databaseNames(storeEnv(dataDir).DB_PREFIX ?? '')), { name: 'ops', roles: ['network_admin'], submitter: 'ops', password: 'long-admin-phrase-7' });
    } finally {
      await store.close();
    }
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) })).status).to.equal(200);
  });
  after(async () => {
    destination.closeAllConnections();
    destination.close();
    if (node && node.child.exitCode === null) { node.child.kill('SIGTERM'); await exitOf(node.child); }
  });

  it(onCouchDB ? 'the restarted node keeps the lease, which another process may hold' : 'the restarted node reports no run in progress and runs at once', async () => {
    const killed = node as NodeProcess;
    void postJson(`${killed.url}/distribute`, '', ADMIN).catch(() => undefined); // no answer: the node dies
    await atDestination;
    const since = ((await getJson(`${killed.url}/status`)).body.out_run_in_progress as { since: string }).since;
    killed.child.kill('SIGKILL');
    await exitOf(killed.child);
    const storePid = killed.embeddedPid;
    if (storePid) await waitFor('the embedded store to exit with its node', async () => { try { process.kill(storePid, 0); return false; } catch { return true; } });
    // Nothing answers at the destination any more: a run that starts finds it unreachable at once.
    destination.closeAllConnections();
    destination.close();

    node = await startMain(env);
    const status = (await getJson(`${node.url}/status`)).body;
    const run = await postJson(`${node.url}/distribute`, '', ADMIN);
    if (onCouchDB) {
      expect(status.out_run_in_progress).to.deep.equal({ since });
      expect(run.body).to.deep.equal({ OK: true, error: '', running_since: since });
      return;
    }
    expect(status.out_run_in_progress).to.equal(null);
    // The dead run is recorded as aborted (README "Source": last_out_run records every run).
    expect(status.last_out_run).to.deep.equal({ started: since, finished: null, OK: false, error: 'the process running it stopped before it ended' });
    expect(run.body).to.not.have.property('running_since');
    expect((run.body.outbound as Record<string, { outcome: string }>)[destinationUrl]?.outcome).to.equal('unreachable');
  });
});
