/**
 * The embedded store on a disk that fills up (src/embedded/storage-fault.ts, supervisor.ts): the
 * write that does not fit is refused (503, not acknowledged) rather than answered 400 and left as
 * a torn record in LevelDB's log; the store is started again with back-off while the disk stays
 * full, not 1.4 times a second; and once space is back nothing acknowledged is lost, a crash of
 * the store included, and the view indexes list what is written after (an audit lost 30
 * acknowledged documents this way, and its indexes, ahead of the database, skipped the next 30).
 *
 * Needs a filesystem it can fill: a tmpfs mounted for the test (root). Skipped where mounting is
 * not allowed. Always on the embedded store (an empty COUCHDB_URL is unset).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, tempDir, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import type { EmbeddedCouch } from '../../src/embedded/supervisor.js';

const AUTH = { authorization: basicAuth('filler', 'filler-password-1') };
const BATCH = 50;

function freeBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

async function gone(pid: number): Promise<void> {
  for (;;) {
    try { process.kill(pid, 0); } catch { return; }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the embedded store on a full disk', function () {
  this.timeout(240000);
  const mountPoint = tempDir('lr-node-small-disk-');
  let mounted = false;
  let node: TestNode | undefined;

  before(function () {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint], { stdio: 'pipe' });
      mounted = true;
    } catch (error) {
      console.log(`      (skipped: no tmpfs could be mounted here: ${String((error as Error).message).split('\n')[0]})`);
      this.skip();
    }
  });
  after(async () => {
    await node?.stop();
    if (mounted) execFileSync('umount', [mountPoint]);
  });

  let published = 0;
  const publish = async (tag: string): Promise<{ status: number; ids: string[] }> => {
    const corpus = nsdlDocs(BATCH);
    const documents = corpus.map((doc, i) => ({ ...doc, keys: [tag], resource_locator: `http://example.org/disk-full/${published}/${i}` }));
    published += 1;
    const { status, body } = await postJson(`${(node as TestNode).url}/publish`, { documents }, AUTH);
    const results = (body.document_results ?? []) as { OK: boolean; doc_ID: string }[];
    return { status, ids: status === 200 && body.OK === true ? results.filter((result) => result.OK).map((result) => result.doc_ID) : [] };
  };

  it('refuses the write that does not fit (503), restarts the store with back-off, and loses nothing acknowledged once space is back, a crash included', async () => {
    // Without the index warmer, only the publish writes: a failing background index write killed the
    // store anyway (a restart recovers LevelDB's log), which hid the loss the audit saw.
    node = await startTestNode({ dataDir: path.join(mountPoint, 'data'), env: { COUCHDB_URL: '', INDEX_WARMING: 'off' } });
    const store = node.embedded as EmbeddedCouch;
    await addAccount(node, 'filler', 'filler-password-1');
    const acknowledged: string[] = [];
    const filler = path.join(mountPoint, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(mountPoint) - 2 * 1024 * 1024)));

    let refusal: number | undefined;
    for (let batch = 0; batch < 60 && refusal === undefined; batch += 1) {
      const { status, ids } = await publish('disk-full-before');
      if (status === 200) acknowledged.push(...ids);
      else refusal = status;
    }
    // A full disk is the store's trouble, not the request's: 503 (was 502 "bad_request").
    expect(refusal, 'a publish on the full disk').to.equal(503);
    expect(acknowledged.length, 'documents acknowledged before the disk was full').to.be.above(0);

    // While the disk stays full the store keeps dying: restarts back off (200 ms, 400, 800...).
    const restartsBefore = store.restartCount;
    await new Promise((resolve) => setTimeout(resolve, 8000));
    expect(store.restartCount - restartsBefore, 'restarts in 8 s on a full disk').to.be.at.most(6);

    fs.rmSync(filler);
    await store.whenRunning();
    for (let tries = 0; (await getJson(`${node.url}/status`)).status !== 200; tries += 1) {
      expect(tries, '/status after space came back').to.be.below(300);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let batch = 0; batch < 2; batch += 1) {
      const { status, ids } = await publish('disk-full-after');
      expect(status, 'a publish once space is back').to.equal(200);
      acknowledged.push(...ids);
    }

    // A crash of the store: what was acknowledged after the fault must survive it.
    const pid = store.pid as number;
    process.kill(pid, 'SIGKILL');
    await gone(pid);
    await store.whenRunning();
    let answer = await postJson(`${node.url}/obtain`, { by_doc_ID: true, request_IDs: acknowledged }, AUTH);
    for (let tries = 0; answer.status !== 200; tries += 1) {
      expect(tries, 'obtain after the crash').to.be.below(300);
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await postJson(`${node.url}/obtain`, { by_doc_ID: true, request_IDs: acknowledged }, AUTH);
    }
    const missing = ((answer.body.documents ?? []) as { doc_ID: string; document: unknown[] | null }[]).filter((entry) => !entry.document || entry.document.length === 0).map((entry) => entry.doc_ID);
    expect(missing, 'acknowledged documents missing after the crash').to.deep.equal([]);

    // The indexes did not stay ahead of the database: what is written now is listed by the views.
    const { status, ids } = await publish('disk-full-last');
    expect(status).to.equal(200);
    const sliced = await getJson(`${node.url}/slice?any_tags=disk-full-last&ids_only=true`);
    expect(sliced.status).to.equal(200);
    const listed = (sliced.body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID);
    expect(listed.sort()).to.deep.equal([...ids].sort());
  });
});
