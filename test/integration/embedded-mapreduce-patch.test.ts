/**
 * patches/pouchdb-mapreduce+9.0.0.patch: the embedded store compiles a view's map function once
 * per index update, in a context of its own, instead of a new vm context and a new compilation
 * for every document (that cost about 60% of an index build: 10,000 NSDL documents through three
 * of our views took 28.6 s before and 11.8 s after, on this machine). CouchDB's view server also
 * compiles a design doc's functions once and keeps their context between documents.
 *
 * What must not change: the rows (every view test on this store proves that), the sandbox (no
 * `require`, no `process`), builtin reduces and errors, and each call's own copy of the document
 * (a map function that changes its argument changes nothing another view, or the next update, sees).
 */
import { expect } from 'chai';
import { startBareStore, type BareStore } from '../support/bare-store.js';

const DB = 'mapreduce-patch';

describe('embedded store: map functions compiled once per index update (pouchdb-mapreduce patch)', function () {
  this.timeout(60000);
  let store: BareStore;
  const call: BareStore['call'] = (...args) => store.call(...args);

  const rows = async (view: string): Promise<{ key: unknown; value: unknown }[]> => {
    const answer = await call('GET', `/${DB}/_design/app/_view/${view}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.rows as { key: unknown; value: unknown }[];
  };

  before(async () => {
    store = await startBareStore('mapreduce-patch');
    expect((await call('PUT', `/${DB}`)).status).to.equal(201);
    const docs = Array.from({ length: 20 }, (_, i) => ({ _id: `doc-${String(i).padStart(2, '0')}`, n: i, tags: ['a', 'b'] }));
    const views = {
      // Counts the calls of this view's function in its context: 1..20 when compiled once.
      calls: { map: 'function (doc) { var g = (function () { return this; })() || globalThis; g.count = (g.count || 0) + 1; emit(doc._id, g.count); }' },
      // Changes its argument: no other view and no later update may see the change.
      mutates: { map: 'function (doc) { doc.n = -1; doc.tags.push("changed"); emit(doc._id, doc.n); }' },
      untouched: { map: 'function (doc) { emit(doc._id, [doc.n, doc.tags.length]); }' },
      sandbox: { map: 'function (doc) { emit(doc._id, [typeof require, typeof process, typeof emit, isArray(doc.tags), sum([1, 2])]); }' },
      total: { map: 'function (doc) { emit(null, doc.n); }', reduce: '_sum' },
      custom: { map: 'function (doc) { emit(null, doc.n); }', reduce: 'function (keys, values) { return values.length; }' },
    };
    expect((await call('POST', `/${DB}/_bulk_docs`, { docs: [...docs, { _id: '_design/app', views }] })).status).to.equal(201);
  });
  after(async () => { await store?.stop(); });

  it('compiles a view function once for the documents of one update', async () => {
    const values = (await rows('calls')).map((row) => row.value as number);
    expect(values).to.have.length(20);
    expect(Math.max(...values), 'a new context per document counts 1 every time').to.equal(20);
  });

  it('gives each call its own copy of the document', async () => {
    expect((await rows('mutates')).every((row) => row.value === -1)).to.equal(true);
    const untouched = await rows('untouched');
    expect(untouched.map((row) => row.value)).to.deep.equal(Array.from({ length: 20 }, (_, i) => [i, 2]));
    const again = await call('GET', `/${DB}/doc-03`);
    expect(again.body.n).to.equal(3);
    expect(again.body.tags).to.deep.equal(['a', 'b']);
  });

  it('keeps the sandbox: no require or process; emit, isArray and sum are there', async () => {
    expect((await rows('sandbox'))[0]?.value).to.deep.equal(['undefined', 'undefined', 'function', true, 3]);
  });

  it('reduces as before, builtin and custom', async () => {
    expect((await rows('total'))[0]?.value).to.equal(190);
    expect((await rows('custom'))[0]?.value).to.equal(20);
  });

  it('indexes a later update with the same function and the same results', async () => {
    expect((await call('PUT', `/${DB}/doc-20`, { n: 20, tags: ['a'] })).status).to.equal(201);
    const untouched = await rows('untouched');
    expect(untouched).to.have.length(21);
    expect(untouched[20]?.value).to.deep.equal([20, 1]);
  });
});
