/** lr-node distribute against a real two-node network on loopback: the outcome per destination. */
import { expect } from 'chai';
import { startTestNetwork, publish, storedDocs, waitFor, type TestNetwork } from '../support/network.js';
import { nsdlDocs } from '../support/documents.js';
import { ensureBuilt, lrNode } from '../support/cli.js';

describe('lr-node distribute', function () {
  this.timeout(300000);
  let net: TestNetwork;

  before(async () => {
    ensureBuilt();
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
  });
  after(async () => { await net.stop(); });

  it('runs distribution with a network_admin credential and prints each destination\'s outcome', async () => {
    const [a, b] = net.nodes as [TestNetwork['nodes'][number], TestNetwork['nodes'][number]];
    await publish(a, nsdlDocs(3));
    const run = await lrNode(['distribute', a.node.url, '--user', a.admin.user, '--password-stdin'], { stdin: `${a.admin.password}\n` });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(`${b.node.url}\tok\t3 written\n`);
    expect(run.stdout + run.stderr).to.not.contain(a.admin.password);
    await waitFor('the documents at B', async () => (await storedDocs(b)).size >= 3);

    const json = await lrNode(['distribute', a.node.url, '--json'], { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } });
    expect(json.code, json.stderr).to.equal(0);
    const body = JSON.parse(json.stdout) as { OK: boolean; destinations: Record<string, { outcome: string }> };
    expect(body.OK).to.equal(true);
    expect(body.destinations[b.node.url]?.outcome).to.equal('ok');

    const status = await lrNode(['status', a.node.url]);
    expect(status.stdout).to.match(new RegExp(`^outbound ${b.node.url.replace(/[.]/g, '\\.')}: ok at \\S+, \\d+ written$`, 'm'));
  });
});
