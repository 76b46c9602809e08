/**
 * /distribute runs do not overlap across node processes: the run holds a lease in CouchDB, which
 * /status reads to say a run is in progress (out_run_in_progress), in whichever process it runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, settled, type TestNode } from '../support/node.js';
import { connectNodes, type NetworkNode } from '../support/network.js';
import { nsdlDocs } from '../support/documents.js';
import { LeaseRepository } from '../../src/storage/lease-repository.js';

describe('POST /distribute and the distribution lease', () => {
  let node: TestNode;
  let leases: LeaseRepository;
  const ADMIN = { authorization: basicAuth('ops', 'long-admin-phrase-7') };
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'ops', 'long-admin-phrase-7', 'network_admin');
    leases = new LeaseRepository(node.couch, node.names);
    // A run reaches its destinations only when the node holds resource data (source step 1).
    await addAccount(node, 'pub', 'publisher-phrase-9');
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth('pub', 'publisher-phrase-9') })).status).to.equal(200);
  });
  after(async () => node.stop());

  it('a run held by another node process is reported, not started', async () => {
    expect(await leases.acquire('distribution', 'another-process', 60_000)).to.deep.equal({ acquired: true });
    const held = await node.couch.use(node.names.node).get('lease:distribution') as unknown as { since: string };
    const { status, body } = await postJson(`${node.url}/distribute`, '', ADMIN);
    expect(status).to.equal(200);
    expect(body).to.deep.equal({ OK: true, error: '', running_since: held.since });
    await leases.release('distribution', 'another-process');
  });

  it('an expired lease of a process that died does not block', async () => {
    expect(await leases.acquire('distribution', 'dead-process', -1)).to.deep.equal({ acquired: true });
    const { body } = await postJson(`${node.url}/distribute`, '', ADMIN);
    expect(body).to.not.have.property('running_since');
    // The run released its lease: nothing is left behind.
    const ids = (await node.couch.use(node.names.node).list()).rows.map((row) => row.id);
    expect(ids).to.not.include('lease:distribution');
  });

  it('/status says a run of another node process is in progress, and not once its lease has expired', async () => {
    const inProgress = async (): Promise<unknown> => (await getJson(`${node.url}/status`)).body.out_run_in_progress;
    expect(await inProgress()).to.equal(null);
    expect(await leases.acquire('distribution', 'another-process', 60_000)).to.deep.equal({ acquired: true });
    const held = await node.couch.use(node.names.node).get('lease:distribution') as unknown as { since: string };
    await settled(node); // the node learns of the other process's lease through its feed
    expect(await inProgress()).to.deep.equal({ since: held.since });
    await leases.release('distribution', 'another-process');
    expect(await leases.acquire('distribution', 'dead-process', -1)).to.deep.equal({ acquired: true });
    await settled(node);
    expect(await inProgress()).to.equal(null);
    await leases.release('distribution', 'dead-process');
  });

  /**
   * Runs `use` while the node's one connection is to a destination that answers GET /destination
   * only once `answer` is called: a run started meanwhile is in progress until then.
   */
  async function withSlowDestination(use: (run: { reached: Promise<void>; answer: () => void }) => Promise<void>): Promise<void> {
    let reached!: () => void;
    const atDestination = new Promise<void>((resolve) => { reached = resolve; });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => { answer = resolve; });
    const destination = http.createServer((_req, res) => {
      reached();
      void answered.then(() => { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{}'); });
    });
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
    try {
      const source: NetworkNode = { node, name: 'source', dataDir: node.dataDir, publisher: { user: 'pub', password: 'publisher-phrase-9' }, admin: { user: 'ops', password: 'long-admin-phrase-7' } };
      await connectNodes(source, { node: { publicUrl: url } } as NetworkNode, { credentials: false });
      await use({ reached: atDestination, answer });
    } finally {
      answer();
      for (const doc of await node.deps.nodes.connections()) await node.deps.nodes.deleteNodeDoc(String(doc._id));
      destination.close();
    }
  }

  it('/status says a run is in progress while one runs (a destination slow to answer), and not once it has ended', async () => {
    await withSlowDestination(async ({ reached, answer }) => {
      const run = postJson(`${node.url}/distribute`, '', ADMIN);
      await reached;
      const during = (await getJson(`${node.url}/status`)).body;
      const since = (during.out_run_in_progress as { since: string } | null)?.since;
      expect(since).to.be.a('string');
      expect((await postJson(`${node.url}/distribute`, '', ADMIN)).body.running_since).to.equal(since);
      answer();
      expect((await run).body).to.include({ OK: true, error: '' });
      const ended = (await getJson(`${node.url}/status`)).body;
      expect(ended.out_run_in_progress).to.equal(null);
      expect(ended.last_out_run).to.include({ started: since, OK: true });
    });
  });

  it('a run that takes over the expired lease of a process that died records that process\'s run as aborted first', async () => {
    const dead = '2026-01-02T03:04:05.678Z';
    expect(await leases.acquire('distribution', 'dead-process', -1, dead)).to.deep.equal({ acquired: true });
    await withSlowDestination(async ({ reached, answer }) => {
      const run = postJson(`${node.url}/distribute`, '', ADMIN);
      await reached;
      const during = (await getJson(`${node.url}/status`)).body;
      expect(during.last_out_run).to.deep.equal({ started: dead, finished: null, OK: false, error: 'the process running it stopped before it ended' });
      const since = (during.out_run_in_progress as { since: string }).since;
      answer();
      expect((await run).body).to.include({ OK: true, error: '' });
      // The taking run's own record follows, when it ends.
      expect((await getJson(`${node.url}/status`)).body.last_out_run).to.include({ started: since, OK: true });
    });
  });

  it('/status reports the run of a process that died as aborted once its lease has expired, before any run takes the lease over', async () => {
    const dead = '2026-01-03T04:05:06.789Z';
    const status = async (): Promise<Record<string, unknown>> => (await getJson(`${node.url}/status`)).body;
    const before = (await status()).last_out_run;
    expect(await leases.acquire('distribution', 'dead-process', 60_000, dead)).to.deep.equal({ acquired: true });
    await settled(node);
    // Held: a run in progress, the last record still the one before.
    expect(await status()).to.deep.include({ out_run_in_progress: { since: dead }, last_out_run: before });
    // Its process died: the lease is not renewed and expires (written here as an expired one).
    expect(await leases.acquire('distribution', 'dead-process', -1, dead)).to.deep.equal({ acquired: true });
    await settled(node);
    expect(await status()).to.deep.include({ out_run_in_progress: null, last_out_run: { started: dead, finished: null, OK: false, error: 'the process running it stopped before it ended' } });
    await leases.release('distribution', 'dead-process');
    await settled(node);
    expect((await status()).last_out_run).to.deep.equal(before);
  });

  it('a lease left behind by a run that recorded its own end (stopped before releasing it) is no aborted run, for /status or for the run taking it over', async () => {
    const status = async (): Promise<Record<string, unknown>> => (await getJson(`${node.url}/status`)).body;
    expect((await postJson(`${node.url}/distribute`, '', ADMIN)).body).to.include({ OK: true });
    await settled(node);
    const recorded = (await status()).last_out_run as { started: string; OK: boolean };
    expect(recorded.OK).to.equal(true);
    // The same run's lease, left behind and expired.
    expect(await leases.acquire('distribution', 'stopped-process', -1, recorded.started)).to.deep.equal({ acquired: true });
    await settled(node);
    expect((await status()).last_out_run).to.deep.equal(recorded);
    await withSlowDestination(async ({ reached, answer }) => {
      const run = postJson(`${node.url}/distribute`, '', ADMIN);
      await reached;
      // Taken over: the run's own record stands.
      expect((await status()).last_out_run).to.deep.equal(recorded);
      answer();
      expect((await run).body).to.include({ OK: true, error: '' });
    });
  });

  it('of two concurrent acquisitions exactly one wins', async () => {
    const answers = await Promise.all([leases.acquire('race', 'p1', 60_000), leases.acquire('race', 'p2', 60_000)]);
    expect(answers.filter((answer) => answer.acquired)).to.have.length(1);
  });
});
