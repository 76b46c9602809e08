/**
 * Two node processes in front of a three-member CouchDB 3.5 cluster (n = 3, q = 2; docs/scaling.md):
 * publish through one, harvest through the other with the same resumption tokens, and stop a
 * member mid-harvest. The harvest completes with no gap and no duplicate, and publishing still
 * succeeds on the write quorum.
 *
 * Reason it runs only with TEST_COUCHDB_CLUSTER=1 (CI sets it): it starts and stops a cluster of
 * its own with the CouchDB fixture's cluster.sh, about a minute of a 2-core machine.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, tempDir, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startCouchCluster, type CouchCluster } from '../support/couchdb-fixture.js';
import { connectCouch, type Couch } from '../../src/storage/couch.js';
import { createOnce } from '../../src/storage/documents.js';
import { writeOne } from '../../src/storage/settled-writes.js';
import { LeaseRepository } from '../../src/storage/lease-repository.js';
import { databaseNames, type DatabaseNames } from '../../src/storage/databases.js';
import { ensureDatabases } from '../../src/storage/bootstrap.js';

const CLUSTER = process.env.TEST_COUCHDB_CLUSTER === '1';
const COUNT = 1000;

const distinct = (count: number, tag: string): Doc[] => nsdlDocs(100).flatMap((doc, i) =>
  Array.from({ length: Math.ceil(count / 100) }, (_, j) => ({ ...doc, resource_locator: `http://example.org/${tag}/${i}/${j}` }))).slice(0, count);

(CLUSTER ? describe : describe.skip)('two node processes on a three-member CouchDB cluster', function () {
  this.timeout(600000);
  let cluster: CouchCluster;
  let first: TestNode;
  let second: TestNode;
  const auth = { authorization: basicAuth('clusterpub', 'cluster-publisher-1') };

  before(async () => {
    cluster = await startCouchCluster(3);
    // One node database set (same DB_PREFIX), each process talking to a different member.
    const prefix = 'cluster_';
    first = await startTestNode({ dataDir: tempDir(), env: { COUCHDB_URL: cluster.memberUrl(1), DB_PREFIX: prefix }, nodeConfig: { services: { harvest: { service_data: { doc_limit: 50, id_limit: 50 } } } } });
    second = await startTestNode({ dataDir: tempDir(), env: { COUCHDB_URL: cluster.memberUrl(2), DB_PREFIX: prefix }, nodeConfig: { services: { harvest: { service_data: { doc_limit: 50, id_limit: 50 } } } } });
    await addAccount(first, 'clusterpub', 'cluster-publisher-1');
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
    await cluster?.stop();
  });

  it('a finished cluster setup draws no [couchdb] single_node warning (single_node is false on members)', () => {
    for (const node of [first, second]) {
      const warnings = node.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40).map((entry) => entry.msg);
      expect(warnings.filter((w) => w.includes('single_node')), warnings.join('\n')).to.deep.equal([]);
      expect(node.logs.some((line) => line.includes('"msg":"CouchDB checked"'))).to.equal(true);
    }
  });

  it('/status on a quiet cluster: once the figures are current, they stay current from both processes (no flicker)', async () => {
    const { status } = await postJson(`${first.url}/publish`, { documents: distinct(200, 'status') }, auth);
    expect(status).to.equal(200);
    type Flags = { doc_count: number | null; doc_count_current: boolean; views_current: boolean; stale_views: string[] };
    const flagsOf = async (node: TestNode): Promise<Flags> => (await getJson(`${node.url}/status`)).body as unknown as Flags;
    const deadline = Date.now() + 60000;
    for (;;) {
      const [a, b] = await Promise.all([flagsOf(first), flagsOf(second)]);
      if (a.doc_count_current && a.views_current && b.doc_count_current && b.views_current) break;
      if (Date.now() > deadline) expect.fail(`/status never current: ${JSON.stringify({ a, b })}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const answers: Flags[] = [];
    for (let call = 0; call < 40; call++) {
      answers.push(await flagsOf(call % 2 ? second : first));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const flickers = answers.filter((flags) => !flags.doc_count_current || !flags.views_current || flags.doc_count !== 200);
    expect(flickers, JSON.stringify(flickers.slice(0, 3))).to.deep.equal([]);
  });

  it('paced publishing (PUBLISH_MAX_INDEX_LAG) from both processes at once: when both are done the indexes trail by at most the limit (and a batch still reaching a copy)', async () => {
    // Two more processes on one database set of their own, each talking to a different member.
    const LIMIT = 100;
    const BATCH = 150;
    const env = (member: number): Record<string, string> => ({ COUCHDB_URL: cluster.memberUrl(member), DB_PREFIX: 'paced_', PUBLISH_MAX_INDEX_LAG: String(LIMIT) });
    const paced = [await startTestNode({ dataDir: tempDir(), env: env(1) }), await startTestNode({ dataDir: tempDir(), env: env(2) })];
    try {
      await addAccount(paced[0] as TestNode, 'pacedpub', 'paced-publisher-1');
      const pacedAuth = { authorization: basicAuth('pacedpub', 'paced-publisher-1') };
      // The pending changes as CouchDB 3.5 counts them (the figure the node paces on, read here by hand).
      const lag = async (node: TestNode): Promise<number> => Math.max(...await Promise.all(['harvest', 'oai-pmh', 'slice'].map(async (ddoc) =>
        ((await node.couch.request({ db: node.names.resourceData, path: `_design/${ddoc}/_info` })) as { view_index: { updates_pending: { total: number } } }).view_index.updates_pending.total)));
      const lags: number[] = [];
      await Promise.all(paced.map(async (node, which) => {
        for (let batch = 0; batch < 3; batch += 1) {
          const documents = distinct(BATCH, `paced-${which}-${batch}`);
          // The second process learns of the account from the accounts database's _changes feed (tens of ms).
          let answer = await postJson(`${node.url}/publish`, { documents }, pacedAuth);
          for (let retry = 0; answer.status === 401 && retry < 20; retry += 1) answer = await postJson(`${node.url}/publish`, { documents }, pacedAuth);
          expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).to.equal(200);
          expect((answer.body.document_results as { OK: boolean }[]).every((result) => result.OK)).to.equal(true);
          lags.push(await lag(node));
        }
      }));
      // Between one process's answer and its reading, the other may write: the figure that must
      // hold is the one after the last answer, when nobody writes any more. A copy of a shard may
      // still receive the last batch by internal replication after the answer, hence one batch more.
      const after = await lag(paced[0] as TestNode);
      expect(after, `lags after each answer: ${lags.join(', ')}; after the last: ${after}`).to.be.at.most(LIMIT + BATCH);
    } finally {
      for (const node of paced) await node.stop();
    }
  });

  describe('writes racing through two members settle to one winner, as on one server (storage/settled-writes.ts)', () => {
    // Two coordinators writing one new id at once: one answer is "ok", the other "accepted"
    // (202, fewer copies than the write quorum) or a conflict; unsettled, both writers were told
    // they wrote it and CouchDB's winner, chosen later by revision hash, was sometimes the accepted one.
    const members = (): [Couch, Couch] => [connectCouch({ url: cluster.memberUrl(1) }), connectCouch({ url: cluster.memberUrl(2) })];
    const freshDatabase = async (name: string): Promise<DatabaseNames> => {
      await connectCouch({ url: cluster.memberUrl(1) }).db.create(name);
      return { ...databaseNames('unused_'), node: name };
    };
    /**
     * The live revisions of every copy (open_revs=all, r = 3; `conflicts=true` shows one copy's),
     * read again for up to 5 s until `done` holds: a withdrawn revision's deletion reaches the
     * copies that did not take it through internal replication.
     */
    const liveLeaves = async (couch: Couch, db: string, id: string, done: (live: Doc[]) => boolean, r = 3): Promise<Doc[]> => {
      const read = async (): Promise<Doc[]> => ((await couch.use(db).get(id, { open_revs: 'all', r } as never)) as unknown as { ok?: Doc }[])
        .flatMap((leaf) => (leaf.ok && leaf.ok._deleted !== true ? [leaf.ok] : []));
      let live = await read();
      for (let wait = 0; wait < 50 && !done(live); wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        live = await read();
      }
      return live;
    };

    /**
     * `doc` published at once through both processes, by clusterpub through the first and by
     * `rival` through the second, each with its name in `keys`: exactly one is told OK, whose
     * name is returned.
     */
    const publishAtOnce = async (doc: Doc, rival: { name: string; auth: Record<string, string> }): Promise<string> => {
      const answers = await Promise.all([
        postJson(`${first.url}/publish`, { documents: [{ ...doc, keys: ['clusterpub'] }] }, auth),
        postJson(`${second.url}/publish`, { documents: [{ ...doc, keys: [rival.name] }] }, rival.auth),
      ]);
      const results = answers.map((answer) => (answer.body.document_results as { OK: boolean; error?: string }[])[0]);
      expect(results.filter((result) => result?.OK).length, `${String(doc.doc_ID)}: ${JSON.stringify(results)}`).to.equal(1);
      return results[0]?.OK ? 'clusterpub' : rival.name;
    };

    it('a value created once (the token secret, the node key): both creators get the same one, and it is the stored one', async () => {
      const [one, two] = members();
      const { node: db } = await freshDatabase('race_created_once');
      // 15 pairs: the losing creator of each waits for the winner's version to settle (documents.ts CREATION_SETTLES_MS).
      const pairs = 15;
      for (let i = 0; i < pairs; i += 1) {
        const id = `generated-${i}`;
        const [a, b] = await Promise.all([
          createOnce(one.use(db), id, () => ({ secret: `from-one-${i}` })),
          createOnce(two.use(db), id, () => ({ secret: `from-two-${i}` })),
        ]);
        expect(a.secret, id).to.equal(b.secret);
        const live = await liveLeaves(one, db, id, (leaves) => leaves.length === 1 && leaves[0]?.secret === a.secret);
        expect(live.map((leaf) => leaf.secret), id).to.deep.equal([a.secret]);
      }
    });

    it('two node processes started together on empty databases through two members: one key pair, one token secret', async () => {
      for (let round = 0; round < 3; round += 1) {
        const env = (member: number): Record<string, string> => ({ COUCHDB_URL: cluster.memberUrl(member), DB_PREFIX: `together${round}_` });
        const started = await Promise.all([1, 2].map((member) => startTestNode({ dataDir: tempDir(), env: env(member) })));
        try {
          const [a, b] = started as [TestNode, TestNode];
          expect(a.bootstrap.tokenSecret, `round ${round}`).to.equal(b.bootstrap.tokenSecret);
          const pubkeys = await Promise.all(started.map(async (node) => (await fetch(`${node.url}/pubkey`)).text()));
          expect(pubkeys[0], `round ${round}`).to.equal(pubkeys[1]);
        } finally {
          for (const node of started) await node.stop();
        }
      }
    });

    it('databases created at once through two members: both processes carry on (a cluster may answer the loser 500 conflict)', async () => {
      const [one, two] = members();
      for (let round = 0; round < 30; round += 1) {
        const names = databaseNames(`created_together${round}_`);
        // Neither start fails, and every database is there (which start reports it created is
        // approximate: a cluster can answer both 500 conflict and still create it).
        await Promise.all([ensureDatabases(one, names), ensureDatabases(two, names)]);
        const present = new Set(await one.db.list());
        expect(Object.values(names).filter((name) => !present.has(name)), `round ${round}`).to.deep.equal([]);
      }
    });

    it('a process reading a value while its creation is contested gets the version that stays', async () => {
      // The settled writer withdraws its version milliseconds later; a reader that took
      // CouchDB's winner of the moment kept the loser's token secret for good (a cluster audit:
      // one of three processes started together). Both states of such a race, made by hand.
      const [one, two] = members();
      const { node: db } = await freshDatabase('race_readers');
      const created_at = new Date().toISOString();
      const version = (hash: string, value: string): Record<string, unknown> => ({ _rev: `1-${hash.repeat(32)}`, secret: value, created_at });
      const put = (id: string, ...versions: Record<string, unknown>[]): Promise<unknown> => two.use(db).bulk({ docs: versions.map((v) => ({ ...v, _id: id })) as never[], new_edits: false } as never);
      const withdrawLater = (id: string, hash: string): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 300)).then(() => two.use(db).destroy(id, `1-${hash.repeat(32)}`));
      // Two first versions, CouchDB's winner (b) the one about to be withdrawn.
      await put('contested', version('a', 'stays'), version('b', 'withdrawn'));
      const [read] = await Promise.all([createOnce(one.use(db), 'contested', () => ({ secret: 'never created' })), withdrawLater('contested', 'b')]);
      expect(read.secret).to.equal('stays');
      // One young version, whose competitor reaches the copies only after the first read.
      await put('young', version('b', 'withdrawn'));
      const competitor = new Promise((resolve) => setTimeout(resolve, 200)).then(() => put('young', version('a', 'stays')));
      const [young] = await Promise.all([createOnce(one.use(db), 'young', () => ({ secret: 'never created' })), competitor.then(() => withdrawLater('young', 'b'))]);
      expect(young.secret).to.equal('stays');
    });

    it('a lease: of two processes acquiring it at once through two members, one holds it', async () => {
      const [one, two] = members();
      const names = await freshDatabase('race_leases');
      const leases = [new LeaseRepository(one, names), new LeaseRepository(two, names)];
      for (let i = 0; i < 25; i += 1) {
        const answers = await Promise.all(leases.map((lease, holder) => lease.acquire(`run-${i}`, `holder-${holder}`, 60000)));
        expect(answers.filter((answer) => answer.acquired).length, `lease run-${i}: ${JSON.stringify(answers)}`).to.equal(1);
      }
    });

    it('one doc_ID published at once by two accounts through two processes: one is told OK, and it is the stored version', async () => {
      await addAccount(first, 'otherpub', 'other-publisher-1');
      const other = { authorization: basicAuth('otherpub', 'other-publisher-1') };
      const [template] = distinct(1, 'contested') as [Doc];
      const couch = connectCouch({ url: cluster.memberUrl(3) });
      for (let i = 0; i < 20; i += 1) {
        const docId = `contested-${i}`;
        const winner = await publishAtOnce({ ...template, doc_ID: docId }, { name: 'otherpub', auth: other });
        const live = await liveLeaves(couch, first.names.resourceData, docId, (leaves) => leaves.length === 1 && (leaves[0]?.keys as string[])[0] === winner);
        expect(live.map((leaf) => leaf.keys), docId).to.deep.equal([[winner]]);
      }
    });

    it('with a member down, two accepted writes of one doc_ID withdraw each other: one is put back, and it is the one told OK', async () => {
      // Two copies left: each publish lands on one copy and meets the other's on the second, so
      // both are only accepted and each sees the other's revision.
      await cluster.stopMember(3);
      try {
        await addAccount(first, 'thirdpub', 'third-publisher-1');
        const third = { authorization: basicAuth('thirdpub', 'third-publisher-1') };
        const [template] = distinct(1, 'degraded') as [Doc];
        const couch = connectCouch({ url: cluster.memberUrl(1) });
        for (let i = 0; i < 10; i += 1) {
          const docId = `degraded-${i}`;
          const winner = await publishAtOnce({ ...template, doc_ID: docId }, { name: 'thirdpub', auth: third });
          // Read once (no waiting), with r = 2: the two copies that answer.
          const live = await liveLeaves(couch, first.names.resourceData, docId, () => true, 2);
          expect(live.map((leaf) => leaf.keys), docId).to.deep.equal([[winner]]);
        }
        // Two updates of one stored document (an account, a lease): withdrawn both, the document
        // would be gone, its previous version being no leaf any more.
        const [one, two] = members();
        const { node: db } = await freshDatabase('race_degraded_updates');
        for (let i = 0; i < 10; i += 1) {
          const id = `updated-${i}`;
          const created = await writeOne(one.use(db), { _id: id, version: 0 }, 'create');
          expect(created.ok, id).to.equal(true);
          const base = (created as { rev: string }).rev;
          const answers = await Promise.all([one, two].map((couch, k) => writeOne(couch.use(db), { _id: id, _rev: base, version: k + 1 }, 'update')));
          expect(answers.filter((answer) => answer.ok).length, `${id}: ${JSON.stringify(answers)}`).to.equal(1);
          const stood = answers[0]?.ok ? 1 : 2;
          const leaves = ((await one.use(db).get(id, { open_revs: 'all', r: 2 } as never)) as unknown as { ok?: Doc }[])
            .flatMap((leaf) => (leaf.ok && leaf.ok._deleted !== true ? [leaf.ok.version] : []));
          expect(leaves, id).to.deep.equal([stood]);
        }
      } finally {
        await cluster.startMember(3);
      }
    });
  });

  it('harvests across both processes with one token chain while a member stops, and publishing goes on', async () => {
    const published: string[] = [];
    for (let i = 0; i < COUNT; i += 500) {
      const { status, body } = await postJson(`${first.url}/publish`, { documents: distinct(COUNT, 'cluster').slice(i, i + 500) }, auth);
      expect(status).to.equal(200);
      for (const result of body.document_results as { doc_ID: string; OK: boolean }[]) { expect(result.OK).to.equal(true); published.push(result.doc_ID); }
    }
    const seen: string[] = [];
    let token: string | undefined;
    let page = 0;
    let stopped = false;
    do {
      // Pages alternate between the processes: a token from one is served by the other.
      const via = page % 2 === 0 ? first : second;
      const url = token ? `${via.url}/harvest/listidentifiers?resumption_token=${encodeURIComponent(token)}` : `${via.url}/harvest/listidentifiers`;
      const { status, body } = await getJson(url);
      expect(status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      expect(body.OK, String(body.error)).to.equal(true);
      const records = (body.listidentifiers ?? []) as { header: { identifier: string } }[];
      seen.push(...records.map((record) => record.header.identifier));
      token = (body.resumption_token as string | null | undefined) ?? undefined;
      page += 1;
      if (page === 3 && !stopped) {
        await cluster.stopMember(3);
        stopped = true;
        // Writes answer 201 or 202 (accepted with fewer copies): publishing still succeeds.
        const during = await postJson(`${second.url}/publish`, { documents: distinct(5, 'during-outage') }, auth);
        expect(during.status).to.equal(200);
        expect((during.body.document_results as { OK: boolean }[]).every((result) => result.OK)).to.equal(true);
      }
    } while (token);
    expect(stopped).to.equal(true);
    expect(new Set(seen).size, 'a record listed twice').to.equal(seen.length);
    for (const id of published) expect(seen, `${id} missing from the harvest`).to.include(id);
    await cluster.startMember(3);
    expect((await getJson(`${second.url}/status`)).status).to.equal(200);
  });
});
