/**
 * npm run bench -- distribute: N documents published at node A; time from one POST /distribute
 * until all are stored (obtainable) at node B, versus a raw filtered replication (issue 15's
 * baseline): a one-shot CouchDB `_replicate` of the same documents between the same two stores in
 * the same run, with the same batch sizes and the same selection as the node's (its Mango selector
 * on CouchDB, its filter function on the embedded store), no node in between. The same
 * replication without the selection is measured too, and printed on its own line.
 * Goal (issue 15): at least 0.8 of raw. A second line: until every view is current at B as well,
 * against a raw replication into a database with the node's design docs, then built.
 *   --docs N (BENCH_DISTRIBUTE_DOCS, default 20000)
 *   --couchdb URL (BENCH_COUCHDB_URL): both nodes on that CouchDB 3.x, each with its own DB_PREFIX
 *   (without it each node has its own embedded store)
 */
import { generateDocument, loadTemplates } from './generate.js';
import { basicAuthHeader, benchOptions, buildViews, createAccount, prepareStore, report, round, startNodeProcess, type NodeProcess } from './support.js';
import { REPLICATION_OPTIONS, replicationSource } from '../src/storage/distribution-outbound.js';
import { REPLICATION_FILTER } from '../src/services/distribute/replication-step.js';
import { LIVE_FOR_DISTRIBUTION_SELECTOR } from '../src/domain/filters.js';
import { DestinationCredentialsRepository } from '../src/storage/destination-credentials.js';

const options = benchOptions({ docs: 20000, docsEnv: 'BENCH_DISTRIBUTE_DOCS' });
const store = await prepareStore(options.couchdb);
const COUNT = options.docs;
// The nodes run as their own processes (as in the other benchmarks); B first, so A's CONFIG can name it.
const b = await startNodeProcess({ node: { node_name: 'node2' } }, store);
const nodes: NodeProcess[] = [b];

async function liveCount(db: string): Promise<number> {
  const database = b.couch.use(db);
  const [info, design] = await Promise.all([database.info(), database.list({ startkey: '_design/', endkey: '_design0' })]);
  return info.doc_count - design.rows.length;
}

/** A database's URL as the replicator reaches it (credentials included: the replicator is a client too). */
const databaseUrl = (node: NodeProcess, db: string): string => `${node.couch.config.url.replace(/\/+$/, '')}/${encodeURIComponent(db)}`;

/**
 * CouchDB's replicator waits a random 0 to `startup_jitter` ms (default 5 s) before each job,
 * ours and raw alike, which moved this bench's ratio by up to half (docs/couchdb.md). Each side
 * runs with couchdb/local.ini's value instead, the setting a CouchDB serving the node is given; the
 * server's own value is put back at the end.
 */
const JITTER_PATH = '_node/_local/_config/replicator/startup_jitter';
const jitterBefore = options.couchdb ? await b.couch.request({ path: JITTER_PATH }).then((value) => value as string, () => undefined) : undefined;
if (options.couchdb) {
  await b.couch.request({ method: 'PUT', path: JITTER_PATH, body: '0' });
  process.stderr.write(`CouchDB [replicator] startup_jitter 0 for this run, as couchdb/local.ini sets it (the server's was ${jitterBefore ?? 'unset: 5000'})\n`);
}

try {
  const a = await startNodeProcess({ node: { node_name: 'node1' }, connections: [{ destination_node_url: b.url, gateway_connection: false, active: true }] }, store);
  nodes.push(a);
  const publisher = await createAccount(a, 'publisher', 'publisher');
  const admin = await createAccount(a, 'network', 'network_admin');
  const inbound = await createAccount(b, 'network', 'network_admin');
  await new DestinationCredentialsRepository(a.couch, a.names).setCredentials(b.url, inbound);

  const templates = loadTemplates();
  for (let start = 0; start < COUNT; start += 1000) {
    const documents = Array.from({ length: Math.min(1000, COUNT - start) }, (_, k) => generateDocument(start + k, templates, true));
    const response = await fetch(`${a.url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basicAuthHeader(publisher.user, publisher.password) }, body: JSON.stringify({ documents }) });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${await response.text()}`);
  }
  process.stderr.write(`published ${COUNT} documents at A\n`);
  // A's indexes are built before either clock starts. Otherwise A's index warmer builds them
  // during our replication and not during the raw one (they are built by then): with both nodes
  // on one store and two cores, measured at 10,000 documents, A's 46 s pass ran through the whole
  // of our replication, and that, not B, made most of the gap to raw (2026-11-25).
  await buildViews(a);

  // Ours: one /distribute, until B holds every document in resource_data (incoming processed).
  const started = performance.now();
  const answer = await fetch(`${a.url}/distribute`, { method: 'POST', headers: { authorization: basicAuthHeader(admin.user, admin.password) } });
  if (answer.status !== 200) throw new Error(`distribute failed: ${answer.status} ${await answer.text()}`);
  const replicated = performance.now();
  // /distribute answers OK once it has run; each destination's outcome is in node_status (spec "Distribution").
  const status = await a.couch.use(a.names.node).get('node_status') as { outbound?: Record<string, { outcome?: string; reason?: string }> };
  const outcome = status.outbound?.[b.url];
  const failure = outcome?.outcome === 'ok' ? undefined : `distribution to B did not succeed: ${outcome?.outcome ?? 'no outcome'} ${outcome?.reason ?? ''}`;
  if (!failure) {
    while ((await liveCount(b.names.resourceData)) < COUNT) await new Promise((resolve) => setTimeout(resolve, 50));
    process.stderr.write(`distribute: replication ${round((replicated - started) / 1000, 2)} s, all stored at B ${round((performance.now() - started) / 1000, 2)} s\n`);
  }
  const ours = COUNT / ((performance.now() - started) / 1000);
  // Obtainable by every service: B's views brought up to date too (what the index warmer has left).
  if (!failure) await buildViews(b);
  const oursViews = (performance.now() - started) / 1000;

  // Raw: the same documents, A's store → a fresh database on B's store, one-shot /_replicate with
  // the options and the selection distribution uses (replication-step.ts: with no filter
  // description, the live documents not marked do_not_distribute); measured even when ours
  // failed, so the run still says what the store can do.
  const selection = a.embedded ? { filter: REPLICATION_FILTER } : { selector: LIVE_FOR_DISTRIBUTION_SELECTOR };
  const rawReplication = async (target: string, selected: boolean): Promise<number> => {
    await b.couch.db.create(target);
    const rawStarted = performance.now();
    await a.couch.request({ method: 'POST', path: '_replicate', body: { source: replicationSource(a.couch, a.names, a.embedded), target: databaseUrl(b, target), ...(selected ? selection : {}), ...REPLICATION_OPTIONS } });
    const seconds = (performance.now() - rawStarted) / 1000;
    const count = await liveCount(target);
    process.stderr.write(`raw${selected ? '' : ' without the selection'}: ${count} documents in ${round(seconds, 2)} s (${round(count / seconds)} docs/s)\n`);
    return count / seconds;
  };
  const raw = await rawReplication(`${b.names.resourceData}_raw_bench`, true);
  await rawReplication(`${b.names.resourceData}_raw_unselected_bench`, false);
  // Raw again, into a database holding the node's design docs, until its views are built too:
  // what a destination must do before a harvest or slice of the documents answers at once.
  const rawViewsDb = `${b.names.resourceData}_raw_views_bench`;
  await b.couch.db.create(rawViewsDb);
  const designs = await b.couch.use(b.names.resourceData).list({ startkey: '_design/', endkey: '_design0', include_docs: true });
  await b.couch.use(rawViewsDb).bulk({ docs: designs.rows.map((row) => { const { _rev, ...doc } = row.doc as unknown as Record<string, unknown>; void _rev; return doc; }) });
  const rawViewsStarted = performance.now();
  await a.couch.request({ method: 'POST', path: '_replicate', body: { source: replicationSource(a.couch, a.names, a.embedded), target: databaseUrl(b, rawViewsDb), ...selection, ...REPLICATION_OPTIONS } });
  const rawReplicated = (performance.now() - rawViewsStarted) / 1000;
  await buildViews({ couch: b.couch, names: { ...b.names, resourceData: rawViewsDb } });
  const rawViews = (performance.now() - rawViewsStarted) / 1000;
  if (!failure) process.stderr.write(`until every view is current at B: ours ${round(oursViews, 2)} s; raw into a database with the node's design docs ${round(rawViews, 2)} s (replicated in ${round(rawReplicated, 2)} s); ratio ${round(rawViews / oursViews, 2)}\n`);
  if (failure) throw new Error(failure);
  report('distribute', ours, raw, 'docs/s');
} finally {
  await Promise.all(nodes.map((node) => node.close()));
  if (options.couchdb) await b.couch.request({ method: jitterBefore === undefined ? 'DELETE' : 'PUT', path: JITTER_PATH, ...(jitterBefore === undefined ? {} : { body: jitterBefore }) }).catch(() => undefined);
}
