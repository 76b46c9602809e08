/** lr-node distribute against a real two-node network on loopback: the outcome per destination. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { connectNodes, startTestNetwork, publish, storedDocs, waitFor, type NetworkNode, type TestNetwork } from '../support/network.js';
import { nsdlDocs } from '../support/documents.js';
import { ensureBuilt, lrNode } from '../support/cli.js';
import { settled } from '../support/node.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { LeaseRepository } from '../../src/storage/lease-repository.js';

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

  it('prints the documents the destination refused beside those written', async () => {
    const [a, b] = net.nodes as [TestNetwork['nodes'][number], TestNetwork['nodes'][number]];
    const admin = { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } };
    // Unsigned (another submitter than the account's): b refuses the owner's update (spec "Authentication", 5).
    const original = { ...nsdlDocs(1)[0], doc_ID: 'cli-refused-update', keys: ['first version'] };
    await publish(a, [original]);
    expect((await lrNode(['distribute', a.node.url], admin)).code).to.equal(0);
    await waitFor('the first version at B', async () => (await storedDocs(b)).has('cli-refused-update'));
    await publish(a, [{ ...original, keys: ['second version'] }]);
    const run = await lrNode(['distribute', a.node.url], admin);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(`${b.node.url}\tok\t0 written, 1 refused by the destination (its log says why)\n`);
    const status = await lrNode(['status', a.node.url]);
    expect(status.stdout).to.match(new RegExp(`^outbound ${b.node.url.replace(/[.]/g, '\\.')}: ok at \\S+, 0 written, 1 refused by the destination \\(its log says why\\)$`, 'm'));
  });

  it('lr-node destination sets, lists and removes the credentials a source presents to a destination', async () => {
    const [a, b] = net.nodes as [TestNetwork['nodes'][number], TestNetwork['nodes'][number]];
    const env = { DATA_DIR: a.dataDir }; // the source node's store, as for the account commands
    const admin = { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } };
    const entry = async (): Promise<{ outcome: string; reason?: string; code: number | null } | undefined> => {
      const run = await lrNode(['distribute', a.node.url, '--json'], admin);
      const found = (JSON.parse(run.stdout) as { destinations: Record<string, { outcome: string; reason?: string }> }).destinations[b.node.url];
      return found && { ...found, code: run.code };
    };
    const outcome = async (): Promise<string | undefined> => (await entry())?.outcome;

    const removed = await lrNode(['destination', 'remove', b.node.publicUrl], { env });
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.equal(`credentials for ${b.node.publicUrl} removed\n`);
    expect((await lrNode(['destination', 'list'], { env })).stdout).to.equal('');
    await publish(a, nsdlDocs(5).slice(3).map((doc, i) => ({ ...doc, doc_ID: `cli-credentials-${i}` })));
    const refused = await entry();
    expect(refused?.outcome, 'without credentials B refuses the replication').to.equal('failed');
    expect(refused?.reason).to.equal(`this node holds no credentials for the destination (HTTP 401): set them with lr-node destination set ${b.node.publicUrl} --user NAME`);
    expect(refused?.code, 'a failed destination fails the command').to.equal(1);

    // A trailing slash names the same destination; the password comes from standard input only.
    const set = await lrNode(['destination', 'set', `${b.node.publicUrl}/`, '--user', b.admin.user, '--password-stdin'], { env, stdin: `${b.admin.password}\n` });
    expect(set.code, set.stderr).to.equal(0);
    const listed = await lrNode(['destination', 'list'], { env });
    expect(listed.stdout).to.equal(`${b.node.publicUrl}\tuser=${b.admin.user}\n`);
    for (const run of [set, listed]) expect(run.stdout + run.stderr).to.not.contain(b.admin.password);
    expect(await outcome()).to.equal('ok');
    await waitFor('the documents at B', async () => (await storedDocs(b)).has('cli-credentials-1'));

    const noTerminal = await lrNode(['destination', 'set', b.node.publicUrl, '--user', b.admin.user], { env: { ...env, LR_PASSWORD: b.admin.password } });
    expect(noTerminal.code).to.equal(2);
    expect(noTerminal.stderr).to.match(/^destination: store .+\ndestination: no terminal to read the password from: use --password-stdin\n$/);
    const bad = await lrNode(['destination', 'set', 'http://user:secret@example.org', '--user', 'x', '--password-stdin'], { env, stdin: 'x\n' });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/without credentials/);
    expect((await lrNode(['destination', 'remove', 'http://example.org/none'], { env })).code).to.equal(1);
  });

  // Earlier releases kept them in a `_local/` document, which a CouchDB cluster does not keep
  // consistent across shard copies: they are read from it until the next change carries them over.
  it('credentials an earlier release kept in _local/distribution_credentials are used, and carried over by the next change', async () => {
    const [a, b] = net.nodes as [TestNetwork['nodes'][number], TestNetwork['nodes'][number]];
    const env = { DATA_DIR: a.dataDir };
    const db = a.node.couch.use(a.node.names.node);
    const current = await db.get('distribution_credentials') as unknown as { _rev: string; destinations: Record<string, unknown> };
    await db.insert({ _id: '_local/distribution_credentials', destinations: current.destinations } as never);
    await db.destroy('distribution_credentials', current._rev);
    expect((await lrNode(['destination', 'list'], { env })).stdout).to.equal(`${b.node.publicUrl}\tuser=${b.admin.user}\n`);
    await publish(a, [{ ...nsdlDocs(1)[0], doc_ID: 'cli-legacy-credentials' }]);
    const run = await lrNode(['distribute', a.node.url, '--json'], { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } });
    expect((JSON.parse(run.stdout) as { destinations: Record<string, { outcome: string }> }).destinations[b.node.url]?.outcome, run.stdout).to.equal('ok');

    const set = await lrNode(['destination', 'set', 'http://example.org/other', '--user', 'other', '--password-stdin'], { env, stdin: 'other-password\n' });
    expect(set.code, set.stderr).to.equal(0);
    const kept = await db.get('distribution_credentials') as unknown as { destinations: Record<string, { user: string }> };
    expect(Object.keys(kept.destinations).sort()).to.deep.equal([b.node.publicUrl, 'http://example.org/other'].sort());
    expect(await db.get('_local/distribution_credentials').catch((error: { statusCode?: number }) => error.statusCode)).to.equal(404);
    expect((await lrNode(['destination', 'remove', 'http://example.org/other'], { env })).code).to.equal(0);
  });

  it('exits 75 without distributing when a run is already in progress', async () => {
    const a = net.nodes[0] as NetworkNode;
    const leases = new LeaseRepository(a.node.couch, a.node.names);
    // Another node process's run, as POST /distribute sees it (distribution-lease.test.ts).
    expect(await leases.acquire('distribution', 'another-process', 60_000)).to.deep.equal({ acquired: true });
    try {
      await settled(a.node);
      const since = ((await a.node.couch.use(a.node.names.node).get('lease:distribution')) as unknown as { since: string }).since;
      const admin = { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } };
      const plain = await lrNode(['distribute', a.node.url], admin);
      expect(plain.code, plain.stderr).to.equal(EXIT.tryLater);
      expect(plain.code).to.equal(75);
      expect(plain.stdout).to.equal(`nothing distributed: a distribution run is in progress since ${since}; see lr-node status ${a.node.url} for its outcome, or run this again when it has ended\n`);
      const json = await lrNode(['distribute', a.node.url, '--json'], admin);
      expect(json.code, json.stderr).to.equal(75);
      expect(JSON.parse(json.stdout)).to.deep.equal({ OK: false, running_since: since, destinations: {} });
    } finally {
      await leases.release('distribution', 'another-process');
    }
  });

  it('exits 1 when a destination failed or was unreachable, 0 when the others were skipped', async () => {
    const [a, b] = net.nodes as [TestNetwork['nodes'][number], TestNetwork['nodes'][number]];
    // A destination that says it is not active: the source skips it (spec, source step 4).
    const inactive = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ OK: true, target_node_info: { active: false, node_id: 'inactive', network_id: 'n', community_id: 'c' } }));
    });
    await new Promise<void>((resolve) => inactive.listen(0, '127.0.0.1', resolve));
    const inactiveUrl = `http://127.0.0.1:${(inactive.address() as AddressInfo).port}`;
    const admin = { env: { LR_USER: a.admin.user, LR_PASSWORD: a.admin.password } };
    try {
      await connectNodes(a, { node: { publicUrl: inactiveUrl } } as NetworkNode, { credentials: false });
      const skipped = await lrNode(['distribute', a.node.url], admin);
      expect(skipped.code, skipped.stderr).to.equal(0);
      expect(skipped.stdout).to.contain(`${inactiveUrl}\tskipped\tthe destination node is not active\n`);
      expect(skipped.stdout).to.match(new RegExp(`^${b.node.url.replace(/[.]/g, '\\.')}\tok\t`, 'm'));
    } finally {
      await new Promise((resolve) => { inactive.closeAllConnections(); inactive.close(resolve); });
    }
    // Nothing answers there any more: unreachable, and the command fails, in plain and JSON output.
    const unreachable = await lrNode(['distribute', a.node.url], admin);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stdout).to.match(new RegExp(`^${inactiveUrl.replace(/[.]/g, '\\.')}\tunreachable\t`, 'm'));
    const json = await lrNode(['distribute', a.node.url, '--json'], admin);
    expect(json.code).to.equal(1);
    const body = JSON.parse(json.stdout) as { OK: boolean; destinations: Record<string, { outcome: string }> };
    expect(body.OK).to.equal(false);
    expect(body.destinations[inactiveUrl]?.outcome).to.equal('unreachable');
    expect(body.destinations[b.node.url]?.outcome).to.equal('ok');
  });
});
