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
import { nsdlDocs, type Doc } from '../support/documents.js';
import { SIZES, record } from './support.js';

type Json = Record<string, unknown>;
const OPEN_PUBLISH = { services: { publish: { service_auth: { service_authz: ['none'] }, service_data: { doc_limit: 1000, msg_size_limit: 50 * 1024 * 1024 } } } };
const CORPUS = nsdlDocs(100);

function batchOf(prefix: string, size: number): Doc[] {
  return Array.from({ length: size }, (_, i) => ({ ...CORPUS[i % CORPUS.length], doc_ID: `${prefix}-${i}`, resource_locator: `http://example.org/kill/${prefix}/${i}` }));
}

/** Publishes one batch; the doc_IDs the node acknowledged (OK true), or undefined when there was no answer. */
async function publish(url: string, docs: Doc[]): Promise<{ status: number; acked: string[] } | undefined> {
  try {
    const response = await fetch(`${url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents: docs }) });
    const body = await response.json() as { document_results?: { doc_ID: string; OK: boolean }[] };
    return { status: response.status, acked: (body.document_results ?? []).filter((r) => r.OK).map((r) => r.doc_ID) };
  } catch {
    return undefined; // the connection died with the node
  }
}

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function gone(pid: number | undefined, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await delay(50);
  expect(alive(pid), `process ${pid} still runs`).to.equal(false);
}

/** Every identifier of a JSON harvest, following resumption tokens; retries a page the store could not serve. */
async function harvestIds(url: string, onPage?: (page: number) => Promise<void>): Promise<{ ids: string[]; retries: number }> {
  const ids: string[] = [];
  let retries = 0;
  let next = `${url}/harvest/listidentifiers`;
  for (let page = 0; page < 100000; page += 1) {
    await onPage?.(page);
    let body: Json | undefined;
    for (let attempt = 0; attempt < 200 && !body; attempt += 1) {
      const response = await fetch(next).catch(() => undefined);
      if (response?.status === 200) body = await response.json() as Json;
      else { retries += 1; await response?.arrayBuffer(); await delay(250); }
    }
    expect(body, `page ${page} never answered`).to.not.equal(undefined);
    expect(body?.OK, JSON.stringify(body).slice(0, 300)).to.equal(true);
    for (const item of body?.listidentifiers as Json[]) ids.push(String((item.header as Json).identifier));
    if (typeof body?.resumption_token !== 'string') break;
    next = `${url}/harvest/listidentifiers?resumption_token=${encodeURIComponent(body.resumption_token)}`;
  }
  return { ids, retries };
}

/** Every acknowledged document is stored, and a full harvest lists each exactly once. */
async function checkNothingLost(name: string, url: string, acked: Set<string>): Promise<void> {
  const { ids } = await harvestIds(url);
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const lost = [...acked].filter((id) => !counts.has(id));
  const duplicated = [...counts.entries()].filter(([, count]) => count > 1).map(([id]) => id);
  // Each acknowledged document is also read back by doc_ID, so "listed" means "stored and served".
  let unreadable = 0;
  const ackedIds = [...acked];
  for (let i = 0; i < ackedIds.length; i += 100) {
    const response = await fetch(`${url}/obtain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request_IDs: ackedIds.slice(i, i + 100), by_doc_ID: true }) });
    const body = await response.json() as { documents: { document: unknown[] | null }[] };
    unreadable += body.documents.filter((entry) => !entry.document || entry.document.length !== 1).length;
  }
  record(name, { checked: acked.size, lost: lost.length + unreadable, duplicated: duplicated.length });
  console.log(`      ${name}: ${acked.size} acknowledged, ${ids.length} harvested, lost ${lost.length}, unreadable ${unreadable}, duplicated ${duplicated.length}`);
  expect(lost.slice(0, 10), 'lost').to.deep.equal([]);
  expect(unreadable, 'unreadable by doc_ID').to.equal(0);
  expect(duplicated.slice(0, 10), 'duplicated').to.deep.equal([]);
}

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
