/** Distribution between real nodes on loopback, each with its own embedded store (spec "Distribution"). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { getJson, postJson, basicAuth, addAccount } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import {
  startTestNetwork, publish, distribute, storedDocs, settled, incomingCount, outbound, connectNodes, authOf, waitFor,
  type TestNetwork, type NetworkNode,
} from '../support/network.js';

const tagged = (docs: Doc[], tag: string): Doc[] => docs.map((doc) => ({ ...doc, keys: [...((doc.keys as string[] | undefined) ?? []), tag] }));
const setNode = (entry: NetworkNode, fields: Record<string, unknown>): Promise<unknown> =>
  entry.node.deps.nodes.reconcileNodeDoc('node_description', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), ...fields }));
const setCommunity = (entry: NetworkNode, fields: Record<string, unknown>): Promise<unknown> =>
  entry.node.deps.nodes.reconcile('community', 'community_description', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), ...fields }));

describe('distribution between two nodes', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  let total = 0;

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net.stop(); });

  it('GET /destination describes the node, with its inbound URL and filter description', async () => {
    const { status, body } = await getJson(`${b.node.url}/destination`);
    expect(status).to.equal(200);
    expect(body).to.include({ OK: true });
    expect(body.target_node_info).to.include({ active: true, gateway_node: false, social_community: true, incoming_url: `${b.node.publicUrl}/incoming` });
    expect(body.target_node_info).to.have.keys('active', 'node_id', 'network_id', 'community_id', 'gateway_node', 'social_community', 'incoming_url', 'filter_description');
    // The original implementation's source reads only its misspelt key (distribute.py), so both are there.
    expect(body.taget_node_info).to.deep.equal(body.target_node_info);
  });

  it('POST /distribute needs a network_admin account (401 without credentials, 403 for an account without the role)', async () => {
    expect((await postJson(`${a.node.url}/distribute`, '')).status).to.equal(401);
    expect((await postJson(`${a.node.url}/distribute`, '', authOf(a.publisher))).status).to.equal(403);
  });

  it('POST /distribute answers 503 while the distribution service description says it is not active', async () => {
    const id = 'distribute:Resource Data Distribution service';
    const setActive = (active: boolean): Promise<unknown> => a.node.deps.nodes.reconcileNodeDoc(id, (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), active }));
    await setActive(false);
    try {
      const { status, body } = await distribute(a);
      expect(status).to.equal(503);
      expect(body).to.deep.equal({ OK: false, error: 'the Resource Data Distribution service is not active on this node' });
      expect(await outbound(a, b)).to.deep.equal({});
    } finally {
      await setActive(true);
    }
  });

  it('the inbound endpoint forwards replication requests only, with credentials', async () => {
    const admin = authOf(b.admin);
    expect((await fetch(`${b.node.url}/incoming/`)).status).to.equal(401);
    expect((await fetch(`${b.node.url}/incoming/`, { headers: authOf(b.publisher) })).status).to.equal(403);
    expect((await fetch(`${b.node.url}/incoming/`, { headers: admin })).status).to.equal(200);
    expect((await fetch(`${b.node.url}/incoming/_all_docs`, { headers: admin })).status).to.equal(403);
    expect((await fetch(`${b.node.url}/incoming/_local/lr-incoming-follower`, { headers: admin })).status).to.equal(403);
    const bulk = (docs: unknown[]): Promise<Response> => fetch(`${b.node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ docs, new_edits: false }) });
    expect((await bulk([{ _id: '_design/evil', _rev: '1-a', views: {} }])).status).to.equal(403);
    expect((await fetch(`${b.node.url}/incoming/_design%2Fevil`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: '{}' })).status).to.equal(403);
  });

  it('common → common: documents arrive with their own node_timestamp; do_not_distribute, deleted and tombstoned documents never do', async () => {
    const ids = await publish(a, nsdlDocs(10));
    const [deleted] = await publish(a, tagged(nsdlDocs(1), 'to be deleted').map((doc) => ({ ...doc, identity: { submitter: 'publisher', submitter_type: 'agent' } })));
    const removal = await postJson(`${a.node.url}/delete`, { request_IDs: [deleted] }, authOf(a.publisher));
    expect(removal.body.document_results).to.deep.equal([{ doc_ID: deleted, OK: true }]);
    // Stored directly: /publish refuses do_not_distribute, and tombstones are made by replacement.
    const source = a.node.couch.use(a.node.names.resourceData);
    const template = { ...nsdlDocs(1)[0], doc_type: 'resource_data', node_timestamp: '2020-01-01T00:00:00.000000Z' };
    await source.insert({ ...template, _id: 'dnd-1', doc_ID: 'dnd-1', do_not_distribute: true } as never);
    await source.insert({ _id: 'tomb-1', doc_ID: 'tomb-1', doc_type: 'tombstone', do_not_distribute: true } as never);
    const answer = await distribute(a);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ OK: true, error: '' });
    total = ids.length;
    const arrived = await settled(b, total);
    const origin = await storedDocs(a);
    expect([...arrived.keys()].sort()).to.deep.equal([...ids].sort());
    for (const id of ids) {
      const there = arrived.get(id) as Record<string, unknown>;
      const here = origin.get(id) as Record<string, unknown>;
      expect(there.node_timestamp).to.not.equal(here.node_timestamp);
      expect(there.publish_node).to.equal(here.publish_node);
      expect(there.resource_locator).to.equal(here.resource_locator);
    }
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 10 });
    // The answer says what became of each destination: the entries /status records for the run.
    expect(answer.body.outbound).to.deep.equal({ [b.node.publicUrl]: await outbound(a, b) });
    const { body: status } = await getJson(`${b.node.url}/status`);
    expect(status.last_in_sync).to.be.a('string');
  });

  it('a second run delivers only new documents, and never stores one twice', async () => {
    const ids = await publish(a, nsdlDocs(3));
    expect((await distribute(a)).status).to.equal(200);
    total += ids.length;
    const arrived = await settled(b, total);
    for (const doc of arrived.values()) expect(doc._rev).to.match(/^1-/);
  });

  it('replicates with a destination password holding characters a URL would percent-encode ($ @ : # % + space)', async () => {
    // CouchDB's replicator does not decode credentials in an endpoint URL: they go in a header.
    const password = `Sx7$pa@ss:w%rd+ #${Date.now()}`;
    await addAccount(b.node, 'special', password, 'network_admin');
    await a.node.deps.distribution.repository.setCredentials(b.node.publicUrl, { user: 'special', password });
    try {
      const ids = await publish(a, tagged(nsdlDocs(2), 'special-password'));
      expect((await distribute(a)).status).to.equal(200);
      expect(await outbound(a, b), 'the run at the destination').to.include({ outcome: 'ok' });
      total += ids.length;
      const arrived = await settled(b, total);
      for (const id of ids) expect(arrived.has(id), id).to.equal(true);
      expect(JSON.stringify((await getJson(`${a.node.url}/status`)).body)).to.not.include(password);
      expect(net.logs[0]?.join('')).to.not.include(password);
    } finally {
      await a.node.deps.distribution.repository.setCredentials(b.node.publicUrl, b.admin);
    }
  });

  it('stores each document once at the destination: the incoming database never held one (issue 15)', async () => {
    // A replicator's _bulk_docs goes through inbound distribution at /incoming and into
    // resource_data; before, each document was also written to incoming and then removed.
    const changes = await b.node.couch.use(b.node.names.incoming).changes();
    expect(changes.results.filter((change) => !change.id.startsWith('_design/')).map((change) => change.id)).to.deep.equal([]);
    for (const doc of (await storedDocs(b)).values()) expect(doc._rev).to.match(/^1-/);
  });

  it('never puts destination credentials in a response or a log line', async () => {
    const { body } = await getJson(`${a.node.url}/status`);
    expect(JSON.stringify(body)).to.not.include(b.admin.password);
    expect(net.logs[0]?.join('')).to.not.include(b.admin.password);
    expect(net.logs[0]?.join('')).to.include('distribution');
  });

  it('applies the destination filter description (include, then exclude)', async () => {
    await b.node.deps.nodes.reconcileNodeDoc('filter_description', () => ({ _id: 'filter_description', doc_type: 'filter_description', active: true, include_exclude: true, filter: [{ filter_key: 'keys', filter_value: '^wanted$' }] }));
    const wanted = await publish(a, tagged(nsdlDocs(2), 'wanted'));
    const other = await publish(a, tagged(nsdlDocs(2), 'unwanted'));
    await distribute(a);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 2 });
    total += 2;
    let arrived = await settled(b, total);
    for (const id of wanted) expect(arrived.has(id)).to.equal(true);
    for (const id of other) expect(arrived.has(id)).to.equal(false);
    await b.node.deps.nodes.reconcileNodeDoc('filter_description', () => ({ _id: 'filter_description', doc_type: 'filter_description', active: true, include_exclude: false, filter: [{ filter_key: 'keys', filter_value: '^excluded$' }] }));
    const excluded = await publish(a, tagged(nsdlDocs(2), 'excluded'));
    await distribute(a);
    // The two 'unwanted' documents pass the exclude filter now.
    total += 2;
    arrived = await settled(b, total);
    for (const id of other) expect(arrived.has(id)).to.equal(true);
    for (const id of excluded) expect(arrived.has(id)).to.equal(false);
    await b.node.deps.nodes.deleteNodeDoc('filter_description');
    await distribute(a);
    total += 2;
    await settled(b, total);
  });

  // The filter function passes nothing with a pattern it cannot compile (it took one for a
  // pattern matching nothing: an excluding filter let everything through), and a run that sends
  // nothing looked like a run with nothing to send. CONFIG refuses such a pattern; one edited into
  // the store is refused at each end, naming it.
  describe('a filter pattern that does not compile', () => {
    const warnings = (logs: string[] | undefined, from: number): Record<string, unknown>[] => (logs ?? []).slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'distribution to a destination failed');

    it('edited into the destination\'s store: its /destination answers 500 naming it (logged), and the source records it', async () => {
      const error = 'the node filter description (filter_description) cannot be applied: filter[0].filter_value "(" is not a regular expression the filter can compile (Invalid regular expression: /(/: Unterminated group)';
      const ids = await publish(a, tagged(nsdlDocs(2), 'while-the-filter-is-broken'));
      await b.node.deps.nodes.reconcileNodeDoc('filter_description', () => ({ _id: 'filter_description', doc_type: 'filter_description', active: true, include_exclude: false, filter: [{ filter_key: 'keys', filter_value: '(' }] }));
      try {
        const [fromA, fromB] = [net.logs[0]?.length ?? 0, net.logs[1]?.length ?? 0];
        const { status, body } = await getJson(`${b.node.url}/destination`);
        expect({ status, body }).to.deep.equal({ status: 500, body: { OK: false, error } });
        const errors = (net.logs[1] ?? []).slice(fromB).map((line) => JSON.parse(line) as { level: number; err?: { message?: string } }).filter((entry) => entry.level === 50);
        expect(errors.map((entry) => entry.err?.message)).to.deep.equal([error]);
        const answer = await distribute(a);
        const entry = { outcome: 'failed', reason: `GET ${b.node.publicUrl}/destination answered HTTP 500 (application/json): the destination reports an error: ${error}` };
        expect(answer.status).to.equal(200);
        expect((answer.body.outbound as Record<string, Record<string, unknown>>)[b.node.publicUrl]).to.include(entry);
        expect(await outbound(a, b)).to.include(entry);
        expect(warnings(net.logs[0], fromA).map((line) => ({ destination: line.destination, outcome: line.outcome, reason: line.reason })))
          .to.deep.equal([{ destination: b.node.publicUrl, ...entry }]);
        const held = await storedDocs(b);
        for (const id of ids) expect(held.has(id), id).to.equal(false);
      } finally {
        await b.node.deps.nodes.deleteNodeDoc('filter_description');
      }
      expect((await distribute(a)).status).to.equal(200);
      total += ids.length;
      const arrived = await settled(b, total);
      for (const id of ids) expect(arrived.has(id), id).to.equal(true);
    });

    it('served by a destination: the source replicates nothing to it and records it failed, naming the pattern, in its answer, /status and log', async () => {
      const { body: destination } = await getJson(`${b.node.url}/destination`);
      const requests: string[] = [];
      let peerUrl = '';
      // A destination that serves the broken pattern (another implementation, or an earlier version of this one).
      const peer = http.createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        const filter = { active: true, include_exclude: false, filter: [{ filter_key: 'keys', filter_value: '^unwanted$' }, { filter_key: '(', filter_value: 'x' }] };
        res.end(JSON.stringify({ ...destination, target_node_info: { ...(destination.target_node_info as Record<string, unknown>), node_id: 'broken-filter-peer', incoming_url: `${peerUrl}/incoming`, filter_description: filter } }));
      });
      await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
      peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
      try {
        await connectNodes(a, { ...b, node: { ...b.node, publicUrl: peerUrl } } as NetworkNode, { credentials: false });
        const fromA = net.logs[0]?.length ?? 0;
        const answer = await distribute(a);
        const entry = {
          outcome: 'failed',
          reason: 'the destination\'s filter description cannot be applied: filter[1].filter_key "(" is not a regular expression the filter can compile (Invalid regular expression: /^(?:()$/: Unterminated group); nothing is replicated to it until its operator corrects the pattern',
        };
        expect(answer.status).to.equal(200);
        expect(answer.body).to.include({ OK: true, error: '' });
        const answered = answer.body.outbound as Record<string, Record<string, unknown>>;
        expect(answered[peerUrl]).to.include(entry);
        expect(answered[b.node.publicUrl]).to.include({ outcome: 'ok' });
        const { body: st } = await getJson(`${a.node.url}/status`);
        expect((st.outbound as Record<string, Record<string, unknown>>)[peerUrl]).to.deep.equal(answered[peerUrl]);
        expect(warnings(net.logs[0], fromA).map((line) => ({ destination: line.destination, outcome: line.outcome, reason: line.reason })))
          .to.deep.equal([{ destination: peerUrl, ...entry }]);
        // Not even its inbound endpoint was probed.
        expect(requests).to.deep.equal(['GET /destination']);
      } finally {
        for (const doc of await a.node.deps.nodes.connections()) {
          if (doc.destination_node_url === peerUrl) await a.node.deps.nodes.deleteNodeDoc(String(doc._id));
        }
        peer.close();
      }
    });
  });

  describe('skip rules (spec "Distribution", source step 4) and the one-gateway rule', () => {
    const NETWORK = 'Learning Registry Open, Public Network';
    const COMMUNITY = 'Learning Registry Open, Public Community';
    let connection: string;
    let canary: string[];

    before(async () => {
      connection = (await a.node.deps.nodes.connections()).find((doc) => doc.destination_node_url === b.node.publicUrl)?._id as string;
      canary = await publish(a, nsdlDocs(1));
    });
    const setConnection = (fields: Record<string, unknown>): Promise<unknown> => a.node.deps.nodes.reconcileNodeDoc(connection, (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), ...fields }));
    afterEach(async () => {
      await setConnection({ gateway_connection: false });
      await setNode(a, { gateway_node: false, network_id: NETWORK });
      await setNode(b, { gateway_node: false, network_id: NETWORK });
      await setCommunity(b, { community_id: COMMUNITY, social_community: true });
      for (const doc of await a.node.deps.nodes.connections()) if (doc._id !== connection) await a.node.deps.nodes.deleteNodeDoc(doc._id);
    });
    const expectSkipped = async (reason: RegExp): Promise<void> => {
      const { body } = await distribute(a);
      expect(body).to.include({ OK: true, error: '' });
      const entry = await outbound(a, b);
      expect(body.outbound).to.deep.equal({ [b.node.publicUrl]: entry });
      expect(entry.outcome).to.equal('skipped');
      expect(entry.reason).to.match(reason);
      expect((await storedDocs(b)).has(canary[0] as string)).to.equal(false);
      expect(await incomingCount(b)).to.equal(0);
    };

    it('communities differ and one of them is not social', async () => {
      await setCommunity(b, { community_id: 'Another community', social_community: false });
      await expectSkipped(/communities differ/);
    });
    it('not a gateway connection and the networks differ', async () => {
      await setNode(b, { network_id: 'Another network' });
      await expectSkipped(/networks differ/);
    });
    it('a gateway connection within one network', async () => {
      await setNode(a, { gateway_node: true });
      await setNode(b, { gateway_node: true });
      await setConnection({ gateway_connection: true });
      await expectSkipped(/within one network/);
    });
    it('a gateway connection where a node is not a gateway', async () => {
      await setNode(a, { gateway_node: true });
      await setNode(b, { network_id: 'Another network' });
      await setConnection({ gateway_connection: true });
      await expectSkipped(/not a gateway node/);
    });
    it('a gateway connection where the source is not a gateway (the destination is)', async () => {
      await setNode(b, { gateway_node: true, network_id: 'Another network' });
      await setConnection({ gateway_connection: true });
      await expectSkipped(/not a gateway node/);
    });
    it('a destination whose node description says it is not active', async () => {
      await setNode(b, { active: false });
      try {
        await expectSkipped(/not active/);
      } finally {
        await setNode(b, { active: true });
      }
    });
    it('a connection that is not active is not run at all', async () => {
      await setConnection({ active: false });
      try {
        const { status, body } = await distribute(a);
        expect(status).to.equal(200);
        expect(body.outbound).to.deep.equal({});
        expect((await storedDocs(b)).has(canary[0] as string)).to.equal(false);
      } finally {
        await setConnection({ active: true });
      }
    });
    it('more than one active gateway connection aborts with an error', async () => {
      await setConnection({ gateway_connection: true });
      await a.node.deps.nodes.reconcileNodeDoc('connection:second', () => ({ _id: 'connection:second', doc_type: 'connection_description', active: true, gateway_connection: true, destination_node_url: 'http://127.0.0.1:9' }));
      const { status, body } = await distribute(a);
      expect(status).to.equal(500);
      expect(body.OK).to.equal(false);
      expect(body.error).to.match(/more than one active gateway/);
      // An aborted run is seen in /status too, not only in the log.
      const run = (await getJson(`${a.node.url}/status`)).body.last_out_run as { OK: boolean; error: string; started: string; finished: string };
      expect(run).to.include({ OK: false, error: body.error });
      expect(run.finished >= run.started).to.equal(true);
    });
    it('a gateway connection between gateway nodes of two networks distributes', async () => {
      await setNode(a, { gateway_node: true });
      await setNode(b, { gateway_node: true, network_id: 'Another network' });
      await setConnection({ gateway_connection: true });
      expect((await distribute(a)).status).to.equal(200);
      expect(await outbound(a, b)).to.include({ outcome: 'ok' });
      await waitFor('the canary', async () => (await storedDocs(b)).has(canary[0] as string));
      total = (await storedDocs(a)).size - 3; // all but the deleted, do_not_distribute and tombstone ones
    });
    it('communities differ but both are social: distributes (after the canary has arrived: the tests above expect it absent)', async () => {
      await setCommunity(b, { community_id: 'Another community', social_community: true });
      const { status, body } = await distribute(a);
      expect(status).to.equal(200);
      expect(body).to.include({ OK: true });
      expect(await outbound(a, b)).to.include({ outcome: 'ok' });
    });
  });

  it('a connection added while the node runs takes effect; an unreachable one is no error', async () => {
    await connectNodes(a, { ...b, node: { ...b.node, publicUrl: 'http://127.0.0.1:9' } } as NetworkNode, { credentials: false });
    const { status, body } = await distribute(a);
    expect(status).to.equal(200);
    expect(body).to.include({ OK: true, error: '' });
    expect((body.outbound as Record<string, Record<string, unknown>>)['http://127.0.0.1:9']).to.include({ outcome: 'unreachable' });
    const { body: st } = await getJson(`${a.node.url}/status`);
    expect((st.outbound as Record<string, Record<string, unknown>>)['http://127.0.0.1:9']).to.include({ outcome: 'unreachable' });
  });

  it('a peer cannot steer replication to another origin, nor send an answer past 1 MiB', async () => {
    const { body: destination } = await getJson(`${b.node.url}/destination`);
    let elsewhereHit = 0;
    const elsewhere = http.createServer((_req, res) => { elsewhereHit += 1; res.end('{}'); });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const peer = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/huge/destination') { res.end(JSON.stringify({ ...destination, padding: 'x'.repeat(2 * 1024 * 1024) })); return; }
      res.end(JSON.stringify({ ...destination, target_node_info: { ...(destination.target_node_info as Record<string, unknown>), node_id: 'steering-peer', incoming_url: `${elsewhereUrl}/internal-db` } }));
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    try {
      for (const url of [peerUrl, `${peerUrl}/huge`]) await connectNodes(a, { ...b, node: { ...b.node, publicUrl: url } } as NetworkNode, { credentials: false });
      expect((await distribute(a)).status).to.equal(200);
      const { body: st } = await getJson(`${a.node.url}/status`);
      const entries = st.outbound as Record<string, Record<string, unknown>>;
      expect(entries[peerUrl]).to.include({ outcome: 'failed' });
      expect(String(entries[peerUrl]?.reason)).to.match(/another origin/);
      expect(elsewhereHit).to.equal(0);
      expect(entries[`${peerUrl}/huge`]).to.include({ outcome: 'failed', reason: `GET ${peerUrl}/huge/destination answered HTTP 200: the answer is larger than this node accepts` });
    } finally {
      for (const doc of await a.node.deps.nodes.connections()) {
        if (String(doc.destination_node_url).startsWith(peerUrl)) await a.node.deps.nodes.deleteNodeDoc(String(doc._id));
      }
      peer.close();
      elsewhere.close();
    }
  });

  it('/status lists the destinations of the last run only, and each run in last_out_run', async () => {
    const gone = (await a.node.deps.nodes.connections()).find((doc) => doc.destination_node_url === 'http://127.0.0.1:9');
    expect(gone).to.not.equal(undefined);
    await a.node.deps.nodes.deleteNodeDoc(String(gone?._id));
    expect((await distribute(a)).status).to.equal(200);
    const { body: st } = await getJson(`${a.node.url}/status`);
    expect(Object.keys(st.outbound as Record<string, unknown>)).to.deep.equal([b.node.publicUrl]);
    expect(st.last_out_run).to.include({ OK: true });
    expect(st.last_out_run).to.not.have.property('error');
  });

  it('a second /distribute during a run reports the running one', async () => {
    const service = a.node.deps.distribution.service;
    const first = service.distribute();
    const second = await service.distribute();
    expect(second).to.have.property('running_since');
    expect((await first).OK).to.equal(true);
    expect(await service.distribute()).to.not.have.property('running_since');
  });

  it('reads the original implementation\'s answer (taget_node_info, lowercase ok)', async () => {
    const { parseDestinationAnswer } = await import('../../src/services/distribute/destination-info.js');
    const info = parseDestinationAnswer(200, { ok: true, taget_node_info: { active: true, node_id: 'n', network_id: 'N', community_id: 'C', gateway_node: false, social_community: true, incoming_url: 'http://x/incoming', filter_description: {} } });
    expect(info).to.include({ node_id: 'n', incoming_url: 'http://x/incoming' });
    // An answer that says it failed, or lacks the ids, is a reason to skip, not a destination.
    expect(parseDestinationAnswer(200, { ok: false, error: 'closed' })).to.equal('the destination reports an error: closed');
    expect(parseDestinationAnswer(200, { OK: true, target_node_info: { node_id: 'n' } })).to.equal('target_node_info lacks node_id, network_id or community_id');
  });

  it('POST /distribute with the network_admin name and a wrong password is 401, and starts no run', async () => {
    const { status, headers } = await postJson(`${a.node.url}/distribute`, '', { authorization: basicAuth(a.admin.user, `${a.admin.password}-wrong`) });
    expect(status).to.equal(401);
    expect(headers.get('www-authenticate')).to.match(/^Basic /);
    expect(await a.node.deps.distribution.service.distribute()).to.not.have.property('running_since');
  });
});
