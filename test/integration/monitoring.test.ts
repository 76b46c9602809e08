/**
 * /metrics (issue 17) on real nodes: parsed with an independent Prometheus text parser, counters
 * that move with requests, publish, distribution and inbound processing; one registry per node
 * (two nodes in this process count apart); view build lag; the loopback monitoring port.
 */
import { expect } from 'chai';
import { register as globalRegistry } from 'prom-client';
import { addAccount, basicAuth, getJson, postJson, startTestNode, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startTestNetwork, publish, distribute, settled, authOf, waitFor, storedDocs, connectNodes, outbound, type TestNetwork, type NetworkNode } from '../support/network.js';
import { scrape } from '../support/prometheus.js';
import { destinationPeer } from '../support/destination-peer.js';
import { onCouchDB } from '../support/store.js';
import type { EmbeddedCouch } from '../../src/embedded/supervisor.js';

describe('/metrics', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  const metricsOf = (entry: NetworkNode) => scrape(`${entry.node.url}/metrics`, authOf(entry.admin));

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net.stop(); });

  it('answers only network_admin accounts: 401 with WWW-Authenticate without valid credentials, 403 without the role', async () => {
    const anonymous = await getJson(`${a.node.url}/metrics`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.OK).to.equal(false);
    expect(anonymous.headers.get('www-authenticate')).to.match(/^Basic /);
    expect((await getJson(`${a.node.url}/metrics`, { headers: authOf(a.publisher) })).status).to.equal(403);
    expect((await getJson(`${a.node.url}/metrics`, { headers: authOf({ user: a.admin.user, password: 'wrong' }) })).status).to.equal(401);
    expect((await getJson(`${a.node.url}/dashboard`)).status).to.equal(401);
  });

  it('counts requests per service, route and status, and documents published and rejected by reason', async () => {
    const before = await metricsOf(a);
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${a.node.url}/status`)).status).to.equal(200);
    expect((await fetch(`${a.node.url}/no-such-endpoint`)).status).to.equal(404);
    await publish(a, nsdlDocs(3));
    const [valid] = nsdlDocs(1);
    const rejected = await postJson(`${a.node.url}/publish`, { documents: [{ ...valid, doc_type: 'not a type' }, valid] }, authOf(a.publisher));
    expect(rejected.body.document_results).to.have.length(2);
    const after = await metricsOf(a);
    const moved = (name: string, labels: Record<string, string> = {}): number => after.value(name, labels) - before.value(name, labels);

    expect(moved('lr_http_requests_total', { service: 'node', route: '/status', method: 'GET', status: '200' })).to.equal(3);
    expect(moved('lr_http_request_duration_seconds_count', { service: 'node', route: '/status', status: '200' })).to.equal(3);
    expect(moved('lr_http_requests_total', { route: 'unmatched', status: '404' })).to.equal(1);
    expect(moved('lr_http_requests_total', { service: 'publish', route: '/publish', method: 'POST', status: '200' })).to.equal(2);
    expect(moved('lr_documents_published_total')).to.equal(4);
    expect(moved('lr_documents_rejected_total', { reason: 'invalid_document' })).to.equal(1);
    // /status answers at once, with doc_count_current false while its view catches up (issue 14).
    const status = await waitFor('a current /status count', async () => {
      const answer = await getJson(`${a.node.url}/status`);
      return answer.body.doc_count_current === true ? answer : undefined;
    });
    expect(after.value('lr_documents_stored')).to.equal(status.body.doc_count).and.to.equal(4);
    expect(after.family('lr_http_request_duration_seconds')?.type).to.equal('HISTOGRAM');
  });

  it('reports the store, the embedded store restarts and the Node process', async () => {
    const scraped = await metricsOf(a);
    expect(scraped.value('lr_store_up')).to.equal(1);
    expect(scraped.value('lr_store_response_seconds')).to.be.above(0);
    // Only a node that runs the embedded store has a supervisor whose restarts count.
    expect(scraped.family('lr_embedded_store_restarts_total')?.metrics[0]?.value).to.equal(onCouchDB ? undefined : '0');
    expect(scraped.value('lr_incoming_backlog_documents')).to.equal(0);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(scraped.family(name), name).to.not.equal(undefined);
    }
  });

  it('counts distribution runs per destination with documents sent and duration, and inbound processing at the destination', async () => {
    const destination = b.node.publicUrl;
    const sourceBefore = await metricsOf(a);
    expect((await distribute(a)).body).to.include({ OK: true, error: '' });
    await settled(b, 4);
    const source = await metricsOf(a);
    const sent = (scrape_: typeof source): number => scrape_.value('lr_distribution_documents_sent_total', { destination });
    expect(source.value('lr_distribution_runs_total', { destination, outcome: 'ok' }) - sourceBefore.value('lr_distribution_runs_total', { destination, outcome: 'ok' })).to.equal(1);
    expect(sent(source) - sent(sourceBefore)).to.equal(4);
    expect(source.value('lr_distribution_duration_seconds_count', { destination })).to.equal(1);
    expect(source.value('lr_distribution_last_outcome', { destination, outcome: 'ok' })).to.equal(1);
    expect(source.value('lr_distribution_last_outcome', { destination, outcome: 'failed' })).to.equal(0);
    expect(source.value('lr_distribution_last_run_timestamp_seconds', { destination })).to.be.closeTo(Date.now() / 1000, 120);

    const arrived = await metricsOf(b);
    expect(arrived.value('lr_incoming_documents_total', { outcome: 'stored' })).to.equal(4);
    expect(arrived.value('lr_incoming_backlog_documents')).to.equal(0);
    expect(arrived.value('lr_documents_stored')).to.equal(4);
  });

  it('keeps each node process\'s counters apart: a registry per node, never prom-client\'s global one', async () => {
    const [ofA, ofB] = await Promise.all([metricsOf(a), metricsOf(b)]);
    expect(ofA.value('lr_documents_published_total')).to.equal(4);
    expect(ofB.value('lr_documents_published_total')).to.equal(0);
    expect(ofB.value('lr_http_requests_total', { route: '/publish' })).to.equal(0);
    expect(await globalRegistry.getMetricsAsJSON()).to.deep.equal([]);
  });

  it('counts arrived documents refused by the inbound checks, by reason, and those the node already holds', async () => {
    const before = await metricsOf(b);
    // What a's replicator would send b (_bulk_docs, new_edits false): one new document, one b
    // already holds (from the distribution above), and three the inbound checks refuse.
    const [held] = [...(await storedDocs(a)).values()];
    const [fresh, badSchema, reserved, keptHome] = nsdlDocs(8).slice(4);
    const stamps = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
    const arrived = (id: string, doc: Doc | undefined, fields: Doc = {}): Doc => ({ ...doc, ...stamps, _id: id, _rev: '1-0a1b', doc_ID: id, ...fields });
    const docs = [
      held,
      arrived('incoming-fresh', fresh),
      arrived('incoming-bad-schema', badSchema, { doc_type: 'not a type' }),
      arrived('incoming-reserved', reserved, { doc_ID: '_design/evil' }),
      arrived('incoming-kept-home', keptHome, { do_not_distribute: 'true' }),
    ];
    const response = await fetch(`${b.node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { ...authOf(b.admin), 'content-type': 'application/json' }, body: JSON.stringify({ docs, new_edits: false }) });
    expect(response.status, await response.clone().text()).to.equal(201);
    // The refused ones, as CouchDB names what its validate_doc_update forbids: a's replicator counts them.
    expect((await response.json() as { id: string; error: string }[]).map(({ id, error }) => [id, error]))
      .to.deep.equal([['incoming-bad-schema', 'forbidden'], ['incoming-reserved', 'forbidden'], ['incoming-kept-home', 'forbidden']]);
    const after = await metricsOf(b);
    const moved = (name: string, labels: Record<string, string> = {}): number => after.value(name, labels) - before.value(name, labels);

    expect(moved('lr_incoming_documents_total', { outcome: 'stored' })).to.equal(1);
    expect(moved('lr_incoming_documents_total', { outcome: 'duplicate' })).to.equal(1);
    expect(moved('lr_incoming_documents_total', { outcome: 'rejected' })).to.equal(3);
    // A bad schema and a reserved doc_ID are both invalid documents; do_not_distribute has its own reason.
    expect(moved('lr_incoming_rejected_total', { reason: 'invalid_document' })).to.equal(2);
    expect(moved('lr_incoming_rejected_total', { reason: 'do_not_distribute' })).to.equal(1);
    expect(moved('lr_incoming_rejected_total')).to.equal(3);
    // Publish's own rejection counter is another one.
    expect(moved('lr_documents_rejected_total')).to.equal(0);
    expect(moved('lr_http_requests_total', { service: 'distribute', route: '/incoming/*', method: 'POST', status: '201' })).to.equal(1);
    expect(after.value('lr_documents_stored')).to.equal(5);
    expect(after.value('lr_incoming_backlog_documents')).to.equal(0);
  });

  it('counts a run to a stopped destination as unreachable, one whose replication fails as failed, and one refusing every document as ok', async () => {
    const peer = await destinationPeer(a, 'fail');
    const refusing = await destinationPeer(a, 'refuse');
    try {
      for (const { url } of [peer, refusing]) await connectNodes(a, { ...b, node: { ...b.node, publicUrl: url } }, { credentials: false });
      const before = await metricsOf(a);
      await b.node.close();
      expect((await distribute(a)).body).to.include({ OK: true, error: '' });
      expect(await outbound(a, b)).to.include({ outcome: 'unreachable' });
      const toPeer = (await getJson(`${a.node.url}/status`)).body.outbound as Record<string, Record<string, unknown>>;
      expect(toPeer[peer.url], JSON.stringify(toPeer[peer.url])).to.include({ outcome: 'failed' });
      expect(peer.received, 'the peer failed the documents a sent').to.be.above(0);
      // Refusing documents is the destination's decision: the run is ok, the documents counted refused.
      expect(toPeer[refusing.url], JSON.stringify(toPeer[refusing.url])).to.include({ outcome: 'ok', docs_written: 0, docs_refused: 4 });
      expect(runs(await metricsOf(a), refusing.url, 'ok') - runs(before, refusing.url, 'ok')).to.equal(1);
      const after = await metricsOf(a);
      const stopped = b.node.publicUrl;
      expect(runs(after, stopped, 'unreachable') - runs(before, stopped, 'unreachable')).to.equal(1);
      expect(runs(after, stopped, 'ok') - runs(before, stopped, 'ok')).to.equal(0);
      expect(runs(after, peer.url, 'failed') - runs(before, peer.url, 'failed')).to.equal(1);
      expect(after.value('lr_distribution_duration_seconds_count', { destination: stopped })).to.equal(2);
      expect(after.value('lr_distribution_documents_sent_total', { destination: peer.url })).to.equal(0);
      // The last outcome moved from ok (the run above) to unreachable: 1 for it, 0 for the others.
      expect(before.value('lr_distribution_last_outcome', { destination: stopped, outcome: 'ok' })).to.equal(1);
      expect(after.value('lr_distribution_last_outcome', { destination: stopped, outcome: 'unreachable' })).to.equal(1);
      expect(after.value('lr_distribution_last_outcome', { destination: stopped, outcome: 'ok' })).to.equal(0);
      expect(after.value('lr_distribution_last_outcome', { destination: peer.url, outcome: 'failed' })).to.equal(1);
      expect(after.value('lr_distribution_last_outcome', { destination: peer.url })).to.equal(1);
    } finally {
      await peer.close();
      await refusing.close();
    }
  });
});

const runs = (scraped: Awaited<ReturnType<typeof scrape>>, destination: string, outcome: string): number => scraped.value('lr_distribution_runs_total', { destination, outcome });

describe('/metrics view build lag', function () {
  this.timeout(120000);
  let node: TestNode;
  const admin = { user: 'lag-admin', password: 'lag-admin-password-1' };

  // The node's own warmer would build the views a second after the writes (INDEX_WARMING,
  // src/storage/index-warmer.ts) and race the scrape: off here, so only a read builds them.
  before(async () => {
    node = await startTestNode({ env: { INDEX_WARMING: 'off' } });
    await addAccount(node, admin.user, admin.password, ['publisher', 'network_admin']);
  });
  after(async () => { await node?.stop(); });

  it('reports view build lag per design document: behind after writes, 0 once the view is read', async () => {
    const headers = { authorization: basicAuth(admin.user, admin.password) };
    const metrics = () => scrape(`${node.url}/metrics`, headers);
    const lag = async (designDoc: string): Promise<number> => (await metrics()).value('lr_view_build_lag_changes', { database: node.names.resourceData, design_doc: designDoc });
    expect((await metrics()).family('lr_view_build_lag_changes')?.metrics.map((sample) => sample.labels?.design_doc)).to.include.members(['harvest', 'oai-pmh', 'slice']);
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(2) }, headers);
    expect(published.body.OK, JSON.stringify(published.body)).to.equal(true);
    // CouchDB 3's own background indexer (ken) may build the index between the write and the
    // scrape whatever the node does: "behind" is only deterministic on the embedded store.
    if (!onCouchDB) expect(await lag('oai-pmh')).to.be.at.least(2);
    // nsdl_dc is read from the oai-pmh design doc's by_schema view (oai_dc lists every record, from harvest's).
    const listed = await fetch(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`);
    expect(listed.status).to.equal(200);
    expect(await lag('oai-pmh')).to.equal(0);
  });
});

describe('/metrics and /dashboard incoming backlog', function () {
  this.timeout(120000);
  let node: TestNode;
  const admin = { user: 'backlog-admin', password: 'backlog-admin-password-1' };
  const headers = { authorization: basicAuth(admin.user, admin.password) };

  before(async () => {
    node = await startTestNode();
    await addAccount(node, admin.user, admin.password, 'network_admin');
  });
  after(async () => { await node?.stop(); });

  it('shows the documents waiting in incoming while its follower is stopped, and 0 once a restarted node has processed them', async () => {
    // The node stops its follower this way when it shuts down; the node goes on answering.
    await node.deps.distribution.follower.stop();
    // Documents arrive as a replicator writes one with attachments: PUT {docid}?new_edits=false,
    // into the incoming database, for the follower to process.
    const stamps = { publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z' };
    const [first, second, third] = nsdlDocs(3);
    const arrived = [{ ...first, doc_ID: 'waiting-1' }, { ...second, doc_ID: 'waiting-2' }, { ...third, doc_ID: 'waiting-bad', doc_type: 'not a type' }];
    for (const doc of arrived) {
      const id = String(doc.doc_ID);
      const put = await fetch(`${node.url}/incoming/${id}?new_edits=false`, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ ...doc, ...stamps, _id: id, _rev: '1-0c1d' }) });
      expect(put.status, await put.text()).to.equal(201);
    }
    const waiting = await scrape(`${node.url}/metrics`, headers);
    expect(waiting.value('lr_incoming_backlog_documents')).to.equal(3);
    expect(waiting.value('lr_incoming_documents_total')).to.equal(0);
    const page = await (await fetch(`${node.url}/dashboard`, { headers })).text();
    expect(page).to.contain('<dd id="incoming-backlog">3</dd>');

    // A node started again on the same store resumes from the follower's checkpoint.
    await node.stop();
    node = await startTestNode({ dataDir: node.dataDir });
    const drained = await waitFor('the backlog to drain', async () => {
      const scraped = await scrape(`${node.url}/metrics`, headers);
      return scraped.value('lr_incoming_backlog_documents') === 0 ? scraped : undefined;
    });
    expect(drained.value('lr_incoming_documents_total', { outcome: 'stored' })).to.equal(2);
    expect(drained.value('lr_incoming_documents_total', { outcome: 'rejected' })).to.equal(1);
    expect(drained.value('lr_incoming_rejected_total', { reason: 'invalid_document' })).to.equal(1);
    expect(await (await fetch(`${node.url}/dashboard`, { headers })).text()).to.contain('<dd id="incoming-backlog">0</dd>');
  });
});

describe('the loopback monitoring port (MONITORING_PORT)', function () {
  this.timeout(60000);
  let node: TestNode;

  // The store-down test kills the embedded store: this node always runs one (an empty
  // COUCHDB_URL is unset), also when the suite runs on CouchDB.
  before(async () => { node = await startTestNode({ env: { MONITORING_PORT: '0', COUCHDB_URL: '' } }); });
  after(async () => { await node?.stop(); });

  it('serves /metrics and /dashboard without credentials on 127.0.0.1 only, and nothing else', async () => {
    expect(node.monitoringUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const scraped = await scrape(`${node.monitoringUrl}/metrics`);
    expect(scraped.value('lr_store_up')).to.equal(1);
    const dashboard = await fetch(`${node.monitoringUrl}/dashboard`);
    expect(dashboard.status).to.equal(200);
    expect(await dashboard.text()).to.contain('Node dashboard');
    const other = await getJson(`${node.monitoringUrl}/status`);
    expect(other.status).to.equal(404);
    expect(other.body.OK).to.equal(false);
    expect((await getJson(`${node.url}/metrics`)).status).to.equal(401);
  });

  it('reports the store down (store_up 0, the dashboard says so), then its restart', async () => {
    const embedded = node.embedded as EmbeddedCouch;
    const pid = embedded.pid as number;
    const exited = new Promise((resolve) => { const check = setInterval(() => { try { process.kill(pid, 0); } catch { clearInterval(check); resolve(undefined); } }, 5); });
    process.kill(pid, 'SIGKILL');
    await exited;
    // The supervisor waits 200 ms before restarting: meanwhile the store does not answer.
    const [down, page] = await Promise.all([scrape(`${node.monitoringUrl}/metrics`), fetch(`${node.monitoringUrl}/dashboard`).then((response) => response.text())]);
    expect(down.value('lr_store_up')).to.equal(0);
    expect(down.value('lr_documents_stored')).to.be.NaN;
    expect(down.value('lr_incoming_backlog_documents')).to.be.NaN;
    expect(down.family('lr_view_build_lag_changes')?.metrics ?? []).to.deep.equal([]);
    expect(page).to.match(/<dd id="store-health"><span class="bad">down<\/span>/);
    expect(page).to.match(/<dd id="documents-stored">unknown<\/dd>/);
    await embedded.whenRunning();
    const up = await scrape(`${node.monitoringUrl}/metrics`);
    expect(up.value('lr_store_up')).to.equal(1);
    expect(up.value('lr_embedded_store_restarts_total')).to.equal(1);
  });

  it('answers within its budget while the store hangs (stopped, not gone): store_up 0', async () => {
    const embedded = node.embedded as EmbeddedCouch;
    const pid = embedded.pid as number;
    process.kill(pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const [hung, page] = await Promise.all([scrape(`${node.monitoringUrl}/metrics`), fetch(`${node.monitoringUrl}/dashboard`).then((response) => response.text())]);
      expect(Date.now() - started, 'answered within the 3 s budget, not when the store resumes').to.be.below(6000);
      expect(hung.value('lr_store_up')).to.equal(0);
      expect(page).to.match(/<dd id="store-health"><span class="bad">down<\/span>/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect((await scrape(`${node.monitoringUrl}/metrics`)).value('lr_store_up')).to.equal(1);
  });

  it('answers an unknown dashboard asset with a JSON 404', async () => {
    const missing = await getJson(`${node.monitoringUrl}/dashboard/assets/..%2Fpackage.json`);
    expect(missing.status).to.equal(404);
    expect(missing.body.OK).to.equal(false);
  });
});
