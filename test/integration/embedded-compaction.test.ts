/**
 * The embedded store drops old revision bodies as CouchDB 3.x's automatic compaction does
 * (src/embedded/compaction.ts): a document updated again and again costs its current size, not
 * the sum of its revisions. Without it, PouchDB kept every body: the OAuth nonce record rewritten
 * on each request grew the store for good.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import { startBareStore, type BareStore } from '../support/bare-store.js';
import { waitFor } from '../support/network.js';
import { CAUGHT_UP_FILE } from '../../src/embedded/compaction.js';

describe('the embedded store compacts old revisions, as CouchDB 3.x does by itself', function () {
  this.timeout(60000);
  let store: BareStore | undefined;
  afterEach(async () => store?.stop());

  it('keeps only the current body of a document updated again (the old revision reads as missing)', async () => {
    store = await startBareStore('auto-compaction');
    expect((await store.call('PUT', '/churn')).status).to.equal(201);
    const first = (await store.call('PUT', '/churn/record', { n: 1 })).body.rev as string;
    const second = (await store.call('PUT', '/churn/record', { _rev: first, n: 2 })).body.rev as string;
    const old = await store.call('GET', `/churn/record?rev=${first}`);
    expect(old.status).to.equal(404);
    expect(old.body).to.include({ error: 'not_found' });
    const current = await store.call('GET', `/churn/record?rev=${second}`);
    expect(current.status).to.equal(200);
    expect(current.body).to.include({ n: 2 });
    // A store that started empty has nothing of an earlier version to compact.
    expect(fs.existsSync(path.join(store.dataDir, CAUGHT_UP_FILE))).to.equal(true);
  });

  it('keeps both leaves of a conflict (compaction drops only revisions that are no leaf)', async () => {
    store = await startBareStore('auto-compaction-conflict');
    expect((await store.call('PUT', '/churn')).status).to.equal(201);
    const docs = [{ _id: 'record', _rev: '1-aaaa', side: 'a' }, { _id: 'record', _rev: '1-bbbb', side: 'b' }];
    expect((await store.call('POST', '/churn/_bulk_docs', { docs, new_edits: false })).status).to.equal(201);
    const winner = await store.call('GET', '/churn/record?conflicts=true');
    expect(winner.body._conflicts).to.deep.equal(['1-aaaa']);
    expect((await store.call('GET', '/churn/record?rev=1-aaaa')).body).to.include({ side: 'a' });
  });

  it('compacts once, in the background, a store an earlier version wrote without auto-compaction', async () => {
    store = await startBareStore('compaction-catch-up');
    expect((await store.call('PUT', '/legacy')).status).to.equal(201);
    // express-pouchdb records a new database in its list after answering; stopped before, the
    // next start would not know it (the node's own databases are created once, long before).
    const created = store;
    await waitFor('the database listed', async () => ((await created.call('GET', '/_all_dbs')).body as unknown as string[]).includes('legacy'), 20000);
    const dataDir = store.dataDir;
    await store.stop({ keepData: true });
    store = undefined;

    // The earlier version's store: plain PouchDB over the same LevelDB folder keeps both bodies.
    const Plain = PouchDB.plugin(leveldbAdapter).defaults({ prefix: path.join(dataDir, 'store') + path.sep });
    const legacy = new Plain('legacy') as unknown as { put(doc: object): Promise<{ rev: string }>; get(id: string, options?: object): Promise<Record<string, unknown>>; close(): Promise<void> };
    const first = (await legacy.put({ _id: 'record', n: 1 })).rev;
    await legacy.put({ _id: 'record', _rev: first, n: 2 });
    expect(await legacy.get('record', { rev: first })).to.include({ n: 1 });
    await legacy.close();
    fs.rmSync(path.join(dataDir, CAUGHT_UP_FILE));

    store = await startBareStore('compaction-catch-up', { dataDir, compactionCatchUpDelayMs: 0 });
    const started = store;
    await waitFor('the catch-up compaction', async () => fs.existsSync(path.join(started.dataDir, CAUGHT_UP_FILE)), 20000);
    expect((await store.call('GET', `/legacy/record?rev=${first}`)).status).to.equal(404);
    expect((await store.call('GET', '/legacy/record')).body).to.include({ n: 2 });
  });
});
