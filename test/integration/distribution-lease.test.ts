/** /distribute runs do not overlap across node processes: the run holds a lease in CouchDB. */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { LeaseRepository } from '../../src/storage/lease-repository.js';

describe('POST /distribute and the distribution lease', () => {
  let node: TestNode;
  let leases: LeaseRepository;
  const ADMIN = { authorization: basicAuth('ops', 'long-admin-phrase-7') };
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'ops', 'long-admin-phrase-7', 'network_admin');
    leases = new LeaseRepository(node.couch, node.names);
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

  it('of two concurrent acquisitions exactly one wins', async () => {
    const answers = await Promise.all([leases.acquire('race', 'p1', 60_000), leases.acquire('race', 'p2', 60_000)]);
    expect(answers.filter((answer) => answer.acquired)).to.have.length(1);
  });
});
