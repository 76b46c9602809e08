/** Start-up on the suite's store: databases, design docs, seeding, restart with the same DATA_DIR (and so the same DB_PREFIX on CouchDB). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { startTestNode, getJson, currentStatus, tempDir, type TestNode } from '../support/node.js';
import { retireDesignDocs } from '../../src/storage/bootstrap.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/http/logger.js';
import { startNode } from '../../src/runtime.js';
import { TEST_COUCHDB_URL } from '../support/store.js';

describe('start-up', () => {
  const dataDir = tempDir();
  let first: { nodeId: string; serviceIds: string[]; pubkey: string } | undefined;

  it('creates the databases and pushes every design document on first start', async () => {
    const node = await startTestNode({ dataDir });
    try {
      const prefix = node.names.resourceData.slice(0, -'resource_data'.length); // DB_PREFIX: empty on the embedded store
      expect(node.bootstrap.createdDatabases.sort()).to.deep.equal(['accounts', 'community', 'incoming', 'incoming_parked', 'network', 'node', 'resource_data'].map((name) => prefix + name));
      expect(node.bootstrap.pushedDesignDocs).to.include('resource_data/_design/harvest');
      // Basic Obtain reads harvest's views: it has no design doc of its own (RETIRED_DESIGN_DOCS).
      expect(node.bootstrap.pushedDesignDocs).to.not.include('resource_data/_design/obtain');
      const ddoc = await node.couch.use(node.names.resourceData).get('_design/harvest') as unknown as { content_hash: string; views: Record<string, unknown> };
      expect(ddoc.content_hash).to.match(/^[0-9a-f]{64}$/);
      expect(ddoc.views).to.have.property('by_node_timestamp');
      expect(node.bootstrap.retiredDesignDocs).to.deep.equal([]);
      const services = (await getJson(`${node.url}/services`)).body.services as { service_id: string }[];
      first = { nodeId: node.bootstrap.nodeId, serviceIds: services.map((s) => s.service_id).sort(), pubkey: await (await fetch(`${node.url}/pubkey`)).text() };
      await node.couch.use(node.names.resourceData).insert({ _id: 'kept', doc_type: 'resource_data', node_timestamp: '2024-01-01T00:00:00.000000Z' } as never);
    } finally {
      await node.stop();
    }
  });

  it('on a second start re-pushes nothing unchanged and keeps ids, keys and data (on disk)', async () => {
    const node = await startTestNode({ dataDir });
    try {
      expect(node.bootstrap.createdDatabases).to.deep.equal([]);
      expect(node.bootstrap.pushedDesignDocs).to.deep.equal([]);
      expect(node.bootstrap.nodeId).to.equal(first?.nodeId);
      const services = (await getJson(`${node.url}/services`)).body.services as { service_id: string }[];
      expect(services.map((s) => s.service_id).sort()).to.deep.equal(first?.serviceIds);
      expect(await (await fetch(`${node.url}/pubkey`)).text()).to.equal(first?.pubkey);
      const kept = await node.couch.use(node.names.resourceData).get('kept');
      expect(kept._id).to.equal('kept');
      expect((await currentStatus(node.url)).doc_count).to.equal(1);
    } finally {
      await node.stop();
    }
  });

  it('applies a changed configuration at the next start, keeping generated ids', async () => {
    const node = await startTestNode({ dataDir, nodeConfig: { node: { node_name: 'Renamed' }, services: { obtain: { service_data: { doc_limit: 7, flow_control: false } } } } });
    try {
      expect(node.bootstrap.nodeId).to.equal(first?.nodeId);
      const { body } = await getJson(`${node.url}/services`);
      const obtain = (body.services as { service_name: string; service_data: Record<string, unknown> }[]).find((s) => s.service_name === 'Basic Obtain');
      expect(obtain?.service_data).to.deep.equal({ doc_limit: 7, id_limit: 1000, flow_control: false, spec_kv_only: false , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 }); // a key CONFIG leaves out keeps its default
      expect((await getJson(`${node.url}/status`)).body.node_name).to.equal('Renamed');
    } finally {
      await node.stop();
    }
  });

  it('applies a change found only inside a description (node_policy, service_data) at the next start', async () => {
    // Each change below leaves every top-level field of its document as it was: the comparison
    // that decided whether to write once serialised only the top-level key names and missed them.
    const changed = async (policy: string, docLimit: number, warned = true, port?: number): Promise<void> => {
      const node = await startTestNode({ dataDir, ...(port ? { env: { PORT: String(port) } } : {}), nodeConfig: { node: { node_name: 'Renamed' }, policy: { deleted_data_policy: policy }, services: { obtain: { service_data: { doc_limit: docLimit, flow_control: false } } } } });
      try {
        // Other processes serving the node take the new documents too: the start says so (docs/scaling.md).
        const warning = node.logs.find((line) => line.includes('this start changed node documents'));
        if (warned) expect((JSON.parse(warning ?? '{}') as { changed?: string[] }).changed).to.include.members(['node_description', 'access:Basic Obtain service']);
        else expect(warning).to.equal(undefined, warning);
        const description = (await getJson(`${node.url}/description`)).body as { node_policy: { deleted_data_policy: string } };
        expect(description.node_policy.deleted_data_policy).to.equal(policy);
        const identify = await (await fetch(`${node.url}/OAI-PMH?verb=Identify`)).text();
        expect(identify).to.contain(`<deletedRecord>${policy}</deletedRecord>`);
        const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: Record<string, unknown> }[];
        expect(services.find((s) => s.service_name === 'Basic Obtain')?.service_data).to.deep.equal({ doc_limit: docLimit, id_limit: 1000, flow_control: false, spec_kv_only: false , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
      } finally {
        await node.stop();
      }
    };
    // The same port twice at the end: PUBLIC_URL (in every service description) stays the same.
    const port = await new Promise<number>((resolve) => { const probe = net.createServer().listen(0, '127.0.0.1', () => { const { port: free } = probe.address() as net.AddressInfo; probe.close(() => resolve(free)); }); });
    await changed('no', 7);
    await changed('persistent', 8);
    await changed('no', 7, true, port);
    await changed('no', 7, false, port); // the same settings again: nothing changed, no warning
  });

  it('deletes a connection CONFIG no longer lists at the next start (it would still be distributed to)', async () => {
    const connectionsOf = async (node: Awaited<ReturnType<typeof startTestNode>>): Promise<string[]> =>
      (await node.deps.nodes.connections()).map((doc) => String(doc.destination_node_url)).sort();
    const two = [{ destination_node_url: 'http://b.example.org' }, { destination_node_url: 'http://c.example.org', gateway_connection: true }];
    let node = await startTestNode({ dataDir, nodeConfig: { connections: two } });
    try {
      expect(await connectionsOf(node)).to.deep.equal(['http://b.example.org', 'http://c.example.org']);
    } finally {
      await node.stop();
    }
    node = await startTestNode({ dataDir, nodeConfig: { connections: two.slice(0, 1) } });
    try {
      expect(await connectionsOf(node)).to.deep.equal(['http://b.example.org']);
    } finally {
      await node.stop();
    }
  });

  it('deletes a design doc an earlier version pushed and this one retired (kept with RETIRE_DESIGN_DOCS=off), never an operator\'s own', async () => {
    // What earlier versions left: node-status and obtain, marked with a content_hash as the node marks its own, with their indexes built.
    const retired = { _id: '_design/node-status', language: 'javascript', content_hash: 'f'.repeat(64), views: { live_by_node_timestamp: { map: 'function (doc) { emit(doc.node_timestamp, null); }' } } };
    const obtain = { _id: '_design/obtain', language: 'javascript', content_hash: 'e'.repeat(64), views: { by_node_timestamp: { map: 'function (doc) { emit([doc.node_timestamp, doc._id], null); }' } } };
    let node = await startTestNode({ dataDir });
    try {
      const db = node.couch.use(node.names.resourceData);
      await db.bulk({ docs: [retired, obtain] as never[] });
      expect((await db.view('node-status', 'live_by_node_timestamp')).total_rows).to.equal(1);
      expect((await db.view('obtain', 'by_node_timestamp')).total_rows).to.equal(1);
    } finally {
      await node.stop();
    }
    // A rolling upgrade: processes of the earlier version still read them, so RETIRE_DESIGN_DOCS=off keeps them (and says so).
    node = await startTestNode({ dataDir, env: { RETIRE_DESIGN_DOCS: 'off' } });
    try {
      const db = node.couch.use(node.names.resourceData);
      expect(node.bootstrap.retiredDesignDocs).to.deep.equal([]);
      expect(node.bootstrap.keptRetiredDesignDocs).to.deep.equal(['resource_data/_design/node-status', 'resource_data/_design/obtain']);
      expect((await db.view('obtain', 'by_node_timestamp')).total_rows).to.equal(1);
      expect((await currentStatus(node.url)).doc_count).to.equal(1);
    } finally {
      await node.stop();
    }
    node = await startTestNode({ dataDir });
    try {
      const db = node.couch.use(node.names.resourceData);
      expect(node.bootstrap.retiredDesignDocs).to.deep.equal(['resource_data/_design/node-status', 'resource_data/_design/obtain']);
      expect(node.bootstrap.keptRetiredDesignDocs).to.deep.equal([]);
      for (const id of ['_design/node-status', '_design/obtain']) {
        expect(await db.get(id).catch((error: { statusCode?: number }) => error.statusCode), id).to.equal(404);
      }
      expect((await currentStatus(node.url)).doc_count).to.equal(1);
      // Obtain ALL answers from harvest's view with the obtain design doc gone.
      expect(((await getJson(`${node.url}/obtain`)).body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID)).to.deep.equal(['kept']);
      // A design doc of the same name without the node's mark is the operator's: kept.
      const { content_hash: _mark, ...operators } = retired;
      void _mark;
      await db.insert(operators as never);
      expect(await retireDesignDocs(node.couch, node.names)).to.deep.equal([]);
      expect((await db.get('_design/node-status'))._id).to.equal('_design/node-status');
    } finally {
      await node.stop();
    }
  });

  it('an upgrade keeps the key pair and secrets an earlier version kept in _local/ documents (ordinary documents now)', async () => {
    // `_local/` documents diverge between the copies of a CouchDB cluster (storage/documents.ts createOnce).
    const upgradedDir = tempDir();
    let node = await startTestNode({ dataDir: upgradedDir });
    const earlier = { pubkey: await (await fetch(`${node.url}/pubkey`)).text(), tokenSecret: node.bootstrap.tokenSecret };
    try {
      // The earlier layout: the same values under `_local/` ids, no ordinary documents.
      const nodeDb = node.couch.use(node.names.node);
      for (const id of ['node_keys', 'node_secrets']) {
        const { _id, _rev, ...values } = await nodeDb.get(id) as unknown as Record<string, unknown> & { _id: string; _rev: string };
        await nodeDb.insert({ ...values, _id: `_local/${id}` } as never);
        await nodeDb.destroy(_id, _rev);
      }
      await node.couch.use(node.names.accounts).insert({ _id: '_local/auth_session_secret', secret: 'earlier-session-secret' } as never);
    } finally {
      await node.stop();
    }
    node = await startTestNode({ dataDir: upgradedDir });
    try {
      expect(await (await fetch(`${node.url}/pubkey`)).text()).to.equal(earlier.pubkey);
      expect(node.bootstrap.tokenSecret).to.equal(earlier.tokenSecret);
      expect(await new AccountRepository(node.couch, node.names).sessionSecretOnce(() => 'a new one')).to.equal('earlier-session-secret');
      expect((await node.couch.use(node.names.node).get('node_secrets') as unknown as { token_secret: string }).token_secret).to.equal(earlier.tokenSecret);
    } finally {
      await node.stop();
    }
  });

  it('a start without CONFIG applies the CONFIG an earlier start was given, with this version\'s defaults and this start\'s PUBLIC_URL; on a store an earlier version wrote, the defaults, warned', async () => {
    const keptDir = tempDir();
    const nodeConfig = { node: { node_name: 'Kept' }, connections: [{ destination_node_url: 'http://b.example.org' }], filter: { filter: [{ filter_key: 'keys', filter_value: 'math' }] }, services: { harvest: { service_data: { doc_limit: 5 } } } };
    let node = await startTestNode({ dataDir: keptDir, nodeConfig, env: { PUBLIC_URL: 'http://old.example.org' } });
    await node.stop();
    node = await startTestNode({ dataDir: keptDir, env: { PUBLIC_URL: 'http://new.example.org' } });
    const harvestData = async (): Promise<Record<string, unknown> | undefined> => ((await getJson(`${node.url}/services`)).body.services as { service_name: string; service_data: Record<string, unknown> }[])
      .find((service) => service.service_name === 'Basic Harvest')?.service_data;
    try {
      expect(node.logs.filter((line) => line.includes('CONFIG is unset: the node applies the CONFIG an earlier start was given'))).to.have.length(1);
      expect((await getJson(`${node.url}/status`)).body.node_name).to.equal('Kept');
      expect((await node.deps.nodes.filterDescription())?.filter).to.deep.equal(nodeConfig.filter.filter);
      const [connection] = await node.deps.nodes.connections();
      expect(connection).to.include({ destination_node_url: 'http://b.example.org', source_node_url: 'http://new.example.org' });
      const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_endpoint: string; service_data?: { schemalocation?: string } }[];
      expect(services.map((service) => service.service_endpoint).filter((endpoint) => !endpoint.startsWith('http://new.example.org/'))).to.deep.equal([]);
      expect(services.find((service) => service.service_name === 'OAI-PMH Harvest')?.service_data?.schemalocation).to.equal('http://new.example.org/schemas/OAI-PMH-LR.xsd');
      // What the CONFIG set is kept; what it left out takes this version's default.
      expect(await harvestData()).to.include({ doc_limit: 5, id_limit: 100 });
      // A kept CONFIG this version refuses (edited into the node database here).
      const nodeDb = node.couch.use(node.names.node);
      const kept = await nodeDb.get('node_config') as unknown as { config: Record<string, unknown> };
      await nodeDb.insert({ ...kept, config: { ...kept.config, policy: { max_document_size: 10 } } } as never);
    } finally {
      await node.stop();
    }
    const refused = await startTestNode({ dataDir: keptDir }).then((started) => started.stop(), (error: Error) => error.message);
    expect(refused).to.equal('configuration error: the CONFIG an earlier start was given, kept in the node database (applied when CONFIG is unset; CONFIG=FILE or CONFIG=defaults replaces it) /policy/max_document_size: must be >= 1024, got 10');
    // A store an earlier version wrote keeps no CONFIG: its node documents hold what that
    // version's defaults were (harvest id_limit 1000), and a start without CONFIG applies this
    // version's defaults, as every start of that version applied its own, saying so.
    node = await startTestNode({ dataDir: keptDir, nodeConfig: { ...nodeConfig, services: { harvest: { service_data: { doc_limit: 100, id_limit: 1000 } } } } });
    try {
      const nodeDb = node.couch.use(node.names.node);
      await nodeDb.destroy('node_config', (await nodeDb.get('node_config'))._rev);
    } finally {
      await node.stop();
    }
    node = await startTestNode({ dataDir: keptDir });
    try {
      expect(node.logs.filter((line) => line.includes('this store keeps no CONFIG of an earlier start'))).to.have.length(1);
      expect((await getJson(`${node.url}/status`)).body.node_name).to.not.equal('Kept');
      expect(await harvestData()).to.include({ doc_limit: 100, id_limit: 100 });
      expect(await node.deps.nodes.connections()).to.deep.equal([]);
      // Deleting the filter is a change like any other: the warning lists it.
      const warning = node.logs.find((line) => line.includes('this start changed node documents'));
      expect((JSON.parse(warning ?? '{}') as { changed?: string[] }).changed).to.include.members(['node_description', 'filter_description']);
    } finally {
      await node.stop();
    }
  });

  it('a store first started without CONFIG keeps the defaults: a later start without CONFIG applies them without the earlier-version warning', async () => {
    const dataDir = tempDir();
    const first = await startTestNode({ dataDir });
    await first.stop();
    const second = await startTestNode({ dataDir });
    try {
      // Every start after the first was warned that "versions before this one kept none" (an audit).
      expect(second.logs.filter((line) => line.includes('this store keeps no CONFIG of an earlier start'))).to.deep.equal([]);
      expect(second.logs.some((line) => line.includes('CONFIG is unset: the node applies the CONFIG an earlier start was given'))).to.equal(true);
      expect((await getJson(`${second.url}/status`)).status).to.equal(200);
    } finally {
      await second.stop();
    }
  });

  it('a start without CONFIG refuses a kept CONFIG whose node documents a start that keeps none rewrote since (a rollback); its own PUBLIC_URL changes and a node_config without a record do not', async () => {
    const keptDir = tempDir();
    const nodeName = async (node: TestNode): Promise<unknown> => (await getJson(`${node.url}/status`)).body.node_name;
    const changedBy = (node: TestNode): string[] | undefined => (JSON.parse(node.logs.find((line) => line.includes('this start changed node documents')) ?? '{}') as { changed?: string[] }).changed;
    const connectionId = (url: string): string => `connection:${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;
    const configB = { node: { node_name: 'B' }, connections: [{ destination_node_url: 'http://b.example.org' }] };
    const publicUrl = { PUBLIC_URL: 'http://one.example.org' };
    let node = await startTestNode({ dataDir: keptDir, nodeConfig: { node: { node_name: 'A' }, connections: [{ destination_node_url: 'http://a.example.org' }] } });
    await node.stop();
    // Starts without CONFIG that rewrite the service descriptions (PUBLIC_URL) record what they left.
    let keptA: Record<string, unknown> = {};
    for (const url of ['http://one.example.org', 'http://two.example.org', 'http://one.example.org']) {
      node = await startTestNode({ dataDir: keptDir, env: { PUBLIC_URL: url } });
      try {
        expect(await nodeName(node)).to.equal('A');
        keptA = await node.couch.use(node.names.node).get('node_config') as unknown as Record<string, unknown>;
      } finally {
        await node.stop();
      }
    }
    // An earlier version started with CONFIG=B after a rollback: B's documents, node_config untouched.
    const startEarlierVersion = async (kept: Record<string, unknown>): Promise<void> => {
      const earlier = await startTestNode({ dataDir: keptDir, nodeConfig: configB, env: publicUrl });
      try {
        const nodeDb = earlier.couch.use(earlier.names.node);
        await nodeDb.insert({ ...kept, _rev: (await nodeDb.get('node_config'))._rev } as never);
      } finally {
        await earlier.stop();
      }
    };
    await startEarlierVersion(keptA);
    const refused = await startTestNode({ dataDir: keptDir, env: publicUrl }).then((started) => started.stop(), (error: Error) => error.message);
    expect(refused).to.equal(`configuration error: CONFIG: unset, and node documents that the CONFIG kept in the node database would rewrite were changed since the start that kept it, by a start that keeps no CONFIG (an earlier version's, given another CONFIG after a rollback) or an edit in the store (node_description, ${connectionId('http://a.example.org')}, ${connectionId('http://b.example.org')}): applying the kept CONFIG would undo that silently. Start once with CONFIG=FILE, the configuration the node is to have (lr-node config show prints the kept one), or CONFIG=defaults; later starts without CONFIG keep it`);
    // The refused start wrote nothing: B's documents are as B's start left them.
    node = await startTestNode({ dataDir: keptDir, nodeConfig: configB, env: publicUrl });
    await node.stop();
    expect(changedBy(node)).to.equal(undefined);
    // A node_config written before starts recorded their documents: applied, as it was then.
    const { descriptions, ...withoutRecord } = keptA;
    expect(descriptions).to.be.an('object');
    await startEarlierVersion(withoutRecord);
    node = await startTestNode({ dataDir: keptDir, env: publicUrl });
    try {
      expect(await nodeName(node)).to.equal('A');
      expect(changedBy(node)).to.include.members(['node_description', connectionId('http://b.example.org')]);
    } finally {
      await node.stop();
    }
  });

  it('refuses a RETIRE_DESIGN_DOCS that is not on or off, naming it', async () => {
    const { loadSettings } = await import('../../src/config/settings.js');
    expect(() => loadSettings({ RETIRE_DESIGN_DOCS: 'no' })).to.throw(/RETIRE_DESIGN_DOCS: must be on or off/);
    expect(loadSettings({}).retireDesignDocs).to.equal(true);
  });

  it('advertises PUBLIC_URL in every service endpoint', async () => {
    const node = await startTestNode({ env: { PUBLIC_URL: 'https://lr.example.org/node/' } });
    try {
      const { body } = await getJson(`${node.url}/services`);
      for (const service of body.services as { service_endpoint: string }[]) {
        expect(service.service_endpoint).to.match(/^https:\/\/lr\.example\.org\/node\//);
      }
    } finally {
      await node.stop();
    }
  });

  it('a start that cannot record where its embedded store listens stops that store (it held DATA_DIR\'s LevelDB lock)', async function () {
    if (TEST_COUCHDB_URL) this.skip();
    const dataDir = tempDir();
    // embedded-store.json cannot be written where a directory of that name stands.
    fs.mkdirSync(path.join(dataDir, 'embedded-store.json'));
    const logs: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _encoding, done) { logs.push(chunk.toString('utf8')); done(); } });
    let failure: unknown;
    await startNode(loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' }), createLogger('info', sink)).then((node) => node.close(), (error: unknown) => { failure = error; });
    expect(String(failure)).to.contain('EISDIR');
    const listening = logs.join('').split('\n').find((line) => line.includes('embedded store listening'));
    const storePid = (JSON.parse(listening ?? '{}') as { storePid?: number }).storePid;
    expect(storePid).to.be.a('number');
    expect(() => process.kill(storePid as number, 0)).to.throw().with.property('code', 'ESRCH');
    fs.rmdirSync(path.join(dataDir, 'embedded-store.json'));
    const node = await startTestNode({ dataDir });
    await node.stop();
  });

  it('two nodes run side by side with their own PORT and DATA_DIR', async () => {
    const [a, b] = await Promise.all([startTestNode(), startTestNode()]);
    try {
      expect(a.url).to.not.equal(b.url);
      expect(a.bootstrap.nodeId).to.not.equal(b.bootstrap.nodeId);
      expect((await getJson(`${a.url}/status`)).body.node_id).to.equal(a.bootstrap.nodeId);
      expect((await getJson(`${b.url}/status`)).body.node_id).to.equal(b.bootstrap.nodeId);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
