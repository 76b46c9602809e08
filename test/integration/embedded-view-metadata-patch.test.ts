/**
 * patches/pouchdb-abstract-mapreduce+9.0.0.patch, the per-document view metadata: the embedded
 * store keeps, for each document a view indexed, the keys the document emits now, as CouchDB's
 * index does. PouchDB kept every key the document had ever emitted and looked all of them up
 * again at each later update, so a document updated again and again with a changing key (every
 * resource_data view here keys node_timestamp: a mark, a replacement, a re-publish) cost more to
 * re-index each time, without bound (a soak audit: 25 ms an update at 200 updates, 401 ms at 2,000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import { startBareStore, type BareStore } from '../support/bare-store.js';

const UPDATES = 30;
const stamp = (i: number): string => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

describe('embedded store: a document\'s view metadata holds its current keys only (pouchdb-abstract-mapreduce patch)', function () {
  this.timeout(60000);
  let store: BareStore | undefined;
  after(async () => store?.stop());

  it(`after ${UPDATES} updates that each change the emitted key, the view holds one row and the document's metadata one key`, async () => {
    store = await startBareStore('view-metadata');
    const started = store;
    expect((await started.call('PUT', '/rd')).status).to.equal(201);
    const views = { by_stamp: { map: 'function (doc) { if (doc.stamp) emit([doc.stamp, doc._id], null); }' } };
    expect((await started.call('PUT', '/rd/_design/app', { views })).status).to.equal(201);
    let rev: string | undefined;
    for (let i = 1; i <= UPDATES; i += 1) {
      rev = (await started.call('PUT', '/rd/hot', { ...(rev ? { _rev: rev } : {}), stamp: stamp(i) })).body.rev as string;
      // Each update indexed on its own, as reads between publishes index them.
      const { body } = await started.call('GET', '/rd/_design/app/_view/by_stamp');
      expect(body.rows, `after update ${i}`).to.deep.equal([{ id: 'hot', key: [stamp(i), 'hot'], value: null }]);
    }
    await started.stop({ keepData: true });
    store = undefined;

    // The view's own database (`rd-mrview-…`) is not served over HTTP: read it as PouchDB stored it.
    const storeDir = path.join(started.dataDir, 'store');
    const viewDb = fs.readdirSync(storeDir).find((name) => name.startsWith('rd-mrview-')) as string;
    const Plain = PouchDB.plugin(leveldbAdapter).defaults({ prefix: storeDir + path.sep });
    const index = new Plain(viewDb) as unknown as { get(id: string): Promise<{ keys: string[] }>; close(): Promise<void> };
    try {
      const meta = await index.get('_local/doc_hot');
      expect(meta.keys).to.have.length(1);
    } finally {
      await index.close();
      fs.rmSync(started.dataDir, { recursive: true, force: true });
    }
  });
});
