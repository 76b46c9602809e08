/**
 * The destination's node process is killed (SIGKILL) while it processes incoming documents, then
 * restarted on the same data: nothing is lost or stored twice (the follower's checkpoint and
 * idempotent processing, src/services/distribute/incoming-follower.ts).
 */
import net from 'node:net';
import { expect } from 'chai';
import { startMain, exitOf, type NodeProcess } from '../support/process.js';
import { tempDir } from '../support/node.js';
import { storeEnv } from '../support/store.js';
import { nsdlDocs } from '../support/documents.js';
import { loadSettings } from '../../src/config/settings.js';
import { connectForTool, type ToolConnection } from '../../src/cli/store-connection.js';
import { databaseNames } from '../../src/storage/databases.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { hashPassword } from '../../src/domain/password.js';
import { startTestNetwork, publish, distribute, connectNodes, waitFor, outbound, type TestNetwork, type NetworkNode } from '../support/network.js';

const COUNT = 2000;
const dataDir = tempDir('lr-crash-dest-');
const names = databaseNames(storeEnv(dataDir).DB_PREFIX ?? '');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

async function counts(store: ToolConnection): Promise<{ stored: number; incoming: number; revs: string[] }> {
  const rows = (await store.couch.use(names.resourceData).list({ include_docs: true })).rows.filter((row) => !row.id.startsWith('_design/'));
  const incoming = (await store.couch.use(names.incoming).list()).rows.filter((row) => !row.id.startsWith('_design/')).length;
  return { stored: rows.length, incoming, revs: rows.map((row) => row.value.rev) };
}

describe('distribution survives a destination killed mid-processing', function () {
  this.timeout(240000);
  let source: TestNetwork;
  let destination: NodeProcess | undefined;
  let store: ToolConnection | undefined;
  const admin = { user: 'network', password: 'network-password-1' };
  let env: Record<string, string>;

  const startDestination = async (): Promise<void> => {
    destination = await startMain(env);
    store = await connectForTool(loadSettings({ DATA_DIR: dataDir, ...storeEnv(dataDir) }));
  };

  before(async () => {
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' };
    source = await startTestNetwork({ nodes: 1, topology: 'none' });
    await startDestination();
    const now = new Date().toISOString();
    await new AccountRepository(store!.couch, names).create({ name: admin.user, roles: ['network_admin'], submitter: admin.user, disabled: false, password: await hashPassword(admin.password), created: now, updated: now });
  });
  after(async () => {
    await store?.close();
    if (destination && destination.child.exitCode === null) { destination.child.kill('SIGTERM'); await exitOf(destination.child); }
    await source.stop();
  });

  it('loses and duplicates nothing', async () => {
    const a = source.nodes[0] as NetworkNode;
    const b = { name: 'destination', node: { publicUrl: destination!.url }, admin } as unknown as NetworkNode;
    await connectNodes(a, b);
    const ids = await publish(a, nsdlDocs(100).flatMap((doc, i) => Array.from({ length: COUNT / 100 }, (_, j) => ({ ...doc, resource_locator: `http://example.org/crash/${i}/${j}` }))));
    const running = distribute(a);
    // Kill while the follower is in the middle: some documents stored, the rest not yet.
    const before = await waitFor('the first stored documents', async () => {
      const now = await counts(store!);
      return now.stored > 0 ? now : undefined;
    }, 60000);
    destination!.child.kill('SIGKILL');
    await exitOf(destination!.child);
    if (destination!.embeddedPid) {
      const pid = destination!.embeddedPid;
      await waitFor('the orphaned embedded store to exit', async () => { try { process.kill(pid, 0); return false; } catch { return true; } });
    }
    expect(before.stored).to.be.below(COUNT);
    await running;
    await store!.close();
    await startDestination();
    expect((await distribute(a)).status).to.equal(200);
    const after = await waitFor('every document at the destination', async () => {
      const now = await counts(store!);
      return now.stored >= COUNT && now.incoming === 0 ? now : undefined;
    }, 120000);
    expect(after.stored).to.equal(ids.length);
    expect(after.revs.filter((rev) => !rev.startsWith('1-'))).to.deep.equal([]);
    expect(await outbound(a, b)).to.include({ outcome: 'ok' });
  });
});
