/**
 * Nothing lost on a real Apache CouchDB 3.5 cluster (issue 14): two node processes in front of a
 * three-member cluster (n = 3, q = 2), one publishing through member 1, one harvesting through
 * member 2. Mid-harvest, member 3 is killed with SIGKILL (a replica of every shard gone) while
 * publishing goes on; later member 2 itself, the one the harvesting node talks to, is killed and
 * restarted. The harvester follows its resumption tokens through the 503s to the end with no gap
 * and no duplicate, every acknowledged document is there once after recovery, and writes keep
 * succeeding on the remaining quorum.
 *
 * It needs the CouchDB fixture (../shared/couchdb, or COUCHDB_FIXTURE_DIR): missing, it fails,
 * as every test that needs an external program does.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestNode, tempDir, type TestNode } from '../support/node.js';
import { startCouchCluster, type CouchCluster } from '../support/couchdb-fixture.js';
import { SIZES, record } from './support.js';
import { OPEN_PUBLISH, batchOf, publish, harvestIds, checkNothingLost } from './kill-support.js';

const PAGE = 50;
const config = { ...OPEN_PUBLISH, services: { ...OPEN_PUBLISH.services, harvest: { service_data: { doc_limit: PAGE, id_limit: PAGE } } } };

describe('reliability: SIGKILL of CouchDB cluster members during a harvest and publishing', function () {
  this.timeout(0);
  let cluster: CouchCluster;
  let publisher: TestNode;
  let harvester: TestNode;

  before(async () => {
    cluster = await startCouchCluster(3);
    const prefix = 'killcluster_';
    publisher = await startTestNode({ dataDir: tempDir(), nodeConfig: config, env: { COUCHDB_URL: cluster.memberUrl(1), DB_PREFIX: prefix, LOG_LEVEL: 'warn' } });
    harvester = await startTestNode({ dataDir: tempDir(), nodeConfig: config, env: { COUCHDB_URL: cluster.memberUrl(2), DB_PREFIX: prefix, LOG_LEVEL: 'warn' } });
  });
  after(async () => {
    await publisher?.stop();
    await harvester?.stop();
    await cluster?.stop();
  });

  it('the harvest completes with no gap or duplicate; every acknowledged document survives', async () => {
    const acked = new Set<string>();
    const total = Math.max(SIZES.harvestDocs, 6 * PAGE);
    for (let i = 0; i < total; i += 100) {
      const answer = await publish(publisher.url, batchOf(`cluster-${i}`, Math.min(100, total - i)));
      expect(answer?.status, 'publish before the kills').to.equal(200);
      for (const id of answer?.acked ?? []) acked.add(id);
    }
    expect(acked.size).to.equal(total);
    const before = new Set(acked);
    let faults = 0;
    let restart: Promise<void> | undefined;
    const { ids, retries } = await harvestIds(harvester.url, async (page) => {
      if (page === 2) {
        cluster.killMember(3);
        faults += 1;
        // Writes go on: two members of three hold every shard (CouchDB's write quorum is 2).
        const answer = await publish(publisher.url, batchOf('during-kill', 50));
        expect(answer?.status, 'publish with a member killed').to.equal(200);
        for (const id of answer?.acked ?? []) acked.add(id);
      }
      if (page === 4) {
        cluster.killMember(2);
        faults += 1;
        restart = delay(3000).then(() => cluster.startMember(2));
      }
    });
    await restart;
    const seen = new Map<string, number>();
    for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    const gaps = [...before].filter((id) => !seen.has(id));
    const duplicated = [...seen.entries()].filter(([, count]) => count > 1).map(([id]) => id);
    record('SIGKILL CouchDB members during harvest', { cases: ids.length, faults, checked: before.size, lost: gaps.length, duplicated: duplicated.length });
    console.log(`      harvest through member 2: ${ids.length} identifiers over 2 member kills (${retries} retried pages), gaps ${gaps.length}, duplicated ${duplicated.length}`);
    expect(retries, 'the harvester met the killed member').to.be.above(0);
    expect(gaps.slice(0, 10)).to.deep.equal([]);
    expect(duplicated.slice(0, 10)).to.deep.equal([]);
    await cluster.startMember(3);
    await checkNothingLost('SIGKILL CouchDB members: after recovery', harvester.url, acked);
  });
});
