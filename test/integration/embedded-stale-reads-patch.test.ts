/**
 * patches/pouchdb-abstract-mapreduce+9.0.0.patch: on the embedded store a stale view read
 * (`stale=ok`, `stale=update_after`) answers from the index as it stands while an index update
 * runs, as CouchDB does, instead of queueing behind the whole update. Its `update_seq` is the
 * view's sequence from before its rows were read: every change up to it is in the rows (the
 * promise range reads during writes rely on, src/storage/current-reads.ts).
 */
import { expect } from 'chai';
import { startBareStore, type BareStore } from '../support/bare-store.js';

const DB = 'stale-reads';
const DOCS = 4000;

describe('embedded store: stale view reads do not wait for a running index update (pouchdb-abstract-mapreduce patch)', function () {
  this.timeout(120000);
  let store: BareStore;
  const call: BareStore['call'] = (...args) => store.call(...args);

  before(async () => {
    store = await startBareStore('stale-patch');
    expect((await call('PUT', `/${DB}`)).status).to.equal(201);
    const views = { by_n: { map: 'function (doc) { if (typeof doc.n === "number") emit(doc.n, null); }' } };
    expect((await call('POST', `/${DB}/_bulk_docs`, { docs: [{ _id: '_design/app', views }, { _id: 'first', n: -1 }] })).status).to.equal(201);
    // The index holds the first document only.
    expect(((await call('GET', `/${DB}/_design/app/_view/by_n`)).body.rows as unknown[]).length).to.equal(1);
    const docs = Array.from({ length: DOCS }, (_, i) => ({ _id: `doc-${String(i).padStart(5, '0')}`, n: i, text: 'x'.repeat(200) }));
    expect((await call('POST', `/${DB}/_bulk_docs`, { docs })).status).to.equal(201);
  });
  after(async () => { await store?.stop(); });

  it('answers a stale read while the update runs, with the sequence its rows are complete up to', async () => {
    const finished: string[] = [];
    // An up-to-date read: it waits while the index takes in the 4,000 documents.
    const updating = call('GET', `/${DB}/_design/app/_view/by_n?limit=0`).then((answer) => { finished.push('update'); return answer; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stale = await call('GET', `/${DB}/_design/app/_view/by_n?stale=ok&update_seq=true`).then((answer) => { finished.push('stale'); return answer; });
    expect(stale.status, JSON.stringify(stale.body)).to.equal(200);
    const lazy = await call('GET', `/${DB}/_design/app/_view/by_n?stale=update_after&update_seq=true&limit=1`);
    expect(lazy.status).to.equal(200);
    await updating;
    expect(finished, 'the stale read waited for the update').to.deep.equal(['stale', 'update']);
    // Whatever part of the update it saw, every change up to its update_seq is in its rows.
    const seq = stale.body.update_seq as number;
    const changes = await call('GET', `/${DB}/_changes?limit=${seq}`);
    const upToSeq = (changes.body.results as { id: string }[]).map((change) => change.id).filter((id) => !id.startsWith('_design/'));
    const ids = new Set((stale.body.rows as { id: string }[]).map((row) => row.id));
    expect(upToSeq.filter((id) => !ids.has(id)), 'changes up to update_seq missing from the rows').to.deep.equal([]);
    expect(seq).to.be.below(DOCS + 2);
  });
});
