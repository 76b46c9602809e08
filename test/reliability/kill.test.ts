/**
 * Nothing lost (issue 14): SIGKILL of the node at random points during publish batches, and of
 * the embedded store during publishing and during a harvest. After recovery every acknowledged
 * document is there, none twice, and a harvester following resumption tokens completes with no
 * gap and no duplicate. Sizes: SIZES in support.ts (modest by default, for .ci/run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestNode, tempDir, type TestNode } from '../support/node.js';
import { startMain, type NodeProcess } from '../support/process.js';
import { SIZES, record } from './support.js';
import { OPEN_PUBLISH, CORPUS, batchOf, publish, gone, harvestIds, checkNothingLost } from './kill-support.js';

describe('reliability: nothing lost under SIGKILL', function () {
  this.timeout(0);

  it(`SIGKILL of the node at random points during publish batches (${SIZES.killRounds} rounds, batches of ${SIZES.batch})`, async () => {
    const dataDir = tempDir();
    const config = path.join(dataDir, 'config.json');
    fs.writeFileSync(config, JSON.stringify(OPEN_PUBLISH));
    const env = { DATA_DIR: dataDir, CONFIG: config };
    const acked = new Set<string>();
    let batches = 0;
    for (let round = 0; round < SIZES.killRounds; round += 1) {
      const running: NodeProcess = await startMain(env);
      let stop = false;
      const publisher = (async () => {
        for (let b = 0; !stop; b += 1) {
          const answer = await publish(running.url, batchOf(`node-kill-r${round}-b${b}`, SIZES.batch));
          if (!answer) return;
          batches += 1;
          for (const id of answer.acked) acked.add(id);
        }
      })();
      await delay(300 + Math.floor(Math.random() * 2500));
      running.child.kill('SIGKILL');
      stop = true;
      await publisher;
      record('SIGKILL node during publish', { faults: 1 });
      // The store child ends with its parent (IPC disconnect) and releases LevelDB's lock.
      const storePid = [...running.output().matchAll(/"storePid":(\d+)/g)].map((m) => Number(m[1])).at(-1);
      await gone(storePid);
    }
    const final = await startMain(env);
    try {
      record('SIGKILL node during publish', { cases: batches });
      await checkNothingLost('SIGKILL node during publish', final.url, acked);
    } finally {
      final.child.kill('SIGTERM');
      await new Promise((resolve) => final.child.once('exit', resolve));
    }
  });

  describe('SIGKILL of the embedded store', () => {
    let node: TestNode;
    before(async () => { node = await startTestNode({ nodeConfig: OPEN_PUBLISH, env: { LOG_LEVEL: 'warn' } }); });
    after(async () => node.stop());

    it('during publishing: every acknowledged document survives, a retried batch stores nothing twice', async () => {
      const acked = new Set<string>();
      let stop = false;
      let batches = 0;
      const publisher = (async () => {
        for (let b = 0; !stop; b += 1) {
          const docs = batchOf(`store-kill-b${b}`, SIZES.batch);
          // A batch without an answer, or answered 503 while the store restarts, is sent again.
          for (let attempt = 0; attempt < 100; attempt += 1) {
            const answer = await publish(node.url, docs);
            batches += 1;
            if (answer && answer.status === 200) { for (const id of answer.acked) acked.add(id); break; }
            await delay(200);
          }
        }
      })();
      for (let kill = 0; kill < SIZES.killRounds; kill += 1) {
        await delay(500 + Math.floor(Math.random() * 2000));
        const pid = node.embedded?.pid;
        process.kill(pid as number, 'SIGKILL');
        record('SIGKILL store during publish', { faults: 1 });
        await gone(pid);
        await node.embedded?.whenRunning();
      }
      await delay(1000);
      stop = true;
      await publisher;
      record('SIGKILL store during publish', { cases: batches });
      await checkNothingLost('SIGKILL store during publish', node.url, acked);
    });

    it('during a harvest: the harvester following tokens completes with no gap and no duplicate', async () => {
      const db = node.couch.use(node.names.resourceData);
      const existing = new Set((await harvestIds(node.url)).ids);
      const docs = Array.from({ length: SIZES.harvestDocs }, (_, i) => ({
        ...CORPUS[i % CORPUS.length], _id: `harvest-kill-${i}`, doc_ID: `harvest-kill-${i}`, doc_type: 'resource_data', node_timestamp: `2019-01-01T00:00:00.${String(i).padStart(6, '0')}Z`,
      }));
      for (let i = 0; i < docs.length; i += 500) await db.bulk({ docs: docs.slice(i, i + 500) as never[] });
      const expected = new Set([...existing, ...docs.map((doc) => doc.doc_ID)]);
      let kills = 0;
      const { ids, retries } = await harvestIds(node.url, async (page) => {
        // Kill the store before the 2nd and every 3rd page after, up to killRounds times.
        if (page >= 1 && page % 3 === 1 && kills < SIZES.killRounds) {
          const pid = node.embedded?.pid;
          process.kill(pid as number, 'SIGKILL');
          kills += 1;
          await gone(pid);
        }
      });
      record('SIGKILL store during harvest', { faults: kills, cases: ids.length });
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      const gaps = [...expected].filter((id) => !counts.has(id));
      const duplicated = [...counts.entries()].filter(([, count]) => count > 1).map(([id]) => id);
      record('SIGKILL store during harvest', { checked: expected.size, lost: gaps.length, duplicated: duplicated.length });
      console.log(`      harvest: ${ids.length} identifiers over ${kills} store kills (${retries} retried pages), gaps ${gaps.length}, duplicated ${duplicated.length}`);
      expect(kills).to.be.greaterThan(0);
      expect(gaps.slice(0, 10)).to.deep.equal([]);
      expect(duplicated.slice(0, 10)).to.deep.equal([]);
    });
  });
});
