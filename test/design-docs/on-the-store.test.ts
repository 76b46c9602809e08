/**
 * The design-doc functions on the store itself (issue 11, item 1): the other tests in this folder
 * run them in node:vm; here the real design docs (design-docs/, assembled and pushed by the code
 * bootstrap uses: loadDesignDocs, ensureDatabases, pushDesignDocs) run where the node runs them,
 * on the suite's store: the embedded store by default, CouchDB 3.5 (its QuickJS query server)
 * with TEST_COUCHDB_URL. The database holds the drift test's fixture, one stored document of
 * every kind (test/fixtures/documents/resource-states.json), and each view's rows and the
 * distribution filter's `_changes?filter=` answers must be exactly what the node:vm sandbox and
 * the TypeScript rules of src/domain/resource-document.ts say of the documents the store holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { DocumentScope } from 'nano';
import { mapFunction, filterFunction } from '../support/sandbox.js';
import { fixture, locatorsOf, type Doc } from '../support/documents.js';
import { ROOT } from '../support/process.js';
import { tempDir } from '../support/node.js';
import { storeName } from '../support/store.js';
import { openSuiteStore, type SuiteStore } from '../support/suite-store.js';
import type { Couch } from '../../src/storage/couch.js';
import type { DatabaseNames } from '../../src/storage/databases.js';
import { loadDesignDocs, type DesignDocFile } from '../../src/storage/design-docs.js';
import { ensureDatabases, pushDesignDocs } from '../../src/storage/bootstrap.js';
import { isDeleted, isDistributable, isHarvestable, isLive } from '../../src/domain/resource-document.js';

const FIXTURE = fixture<{ documents: Record<string, Doc> }>('documents/resource-states.json').documents;
const EXAMPLE_FILTER = fixture<Doc>('node-config/filter-description-example.json');

/** Views whose rows are exactly the live documents (as in resource-rules-drift.test.ts). */
const LIVE_VIEWS = ['slice/by_date', 'slice/by_identity', 'slice/by_tag'];
/** Views of every harvest record, valued 1 when the record is deleted. */
const HARVEST_VIEWS = ['harvest/by_node_timestamp', 'harvest/by_resource_locator', 'oai-pmh/by_schema'];
const FILTER = 'distribute/live_for_destination';

type Row = [id: string, key: unknown, value: unknown];
const ordered = (rows: Row[]): Row[] => rows.map((row) => JSON.parse(JSON.stringify(row)) as Row).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe(`design-doc functions on the ${storeName}: views and the distribution filter agree with node:vm and src/domain/resource-document.ts`, function () {
  this.timeout(120000);
  let store: SuiteStore | undefined;
  let dataDir: string;
  let couch: Couch;
  let names: DatabaseNames;
  let db: DocumentScope<unknown>;
  let files: DesignDocFile[];
  let pushed: string[];
  /** Every document the resource data database holds, as the store returns it (design docs too). */
  let held: Doc[];
  const ids = (test: (doc: Doc) => boolean): string[] => held.filter(test).map((doc) => String(doc._id)).sort();

  before(async () => {
    dataDir = tempDir('lr-design-docs-');
    store = await openSuiteStore(dataDir);
    ({ couch, names } = store);
    db = couch.use(names.resourceData);
    files = loadDesignDocs(path.join(ROOT, 'design-docs'));
    await ensureDatabases(couch, names);
    // The fixture first: its `_design/slice` stands for a design doc left by an older node
    // (content_hash "x"), which the push must replace with the current one.
    const written = await db.bulk({ docs: Object.entries(FIXTURE).map(([id, doc]) => ({ ...doc, _id: id })) });
    expect(written.filter((result) => result.error), JSON.stringify(written)).to.deep.equal([]);
    pushed = await pushDesignDocs(couch, names, files);
    held = (await db.list({ include_docs: true })).rows.map((row) => row.doc as unknown as Doc);
  });
  after(async () => {
    await store?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the store holds the fixture and the pushed design docs; the stale _design/slice was replaced', () => {
    expect(pushed).to.include('resource_data/_design/slice');
    const designs = files.filter((file) => file.db === 'resource_data').map((file) => file.doc);
    expect(ids((doc) => String(doc._id).startsWith('_design/'))).to.deep.equal(designs.map((doc) => doc._id).sort());
    for (const design of designs) {
      expect(held.find((doc) => doc._id === design._id)?.content_hash, design._id).to.equal(design.content_hash);
    }
    expect(ids((doc) => !String(doc._id).startsWith('_design/'))).to.deep.equal(Object.keys(FIXTURE).filter((id) => !id.startsWith('_design/')).sort());
  });

  for (const name of [...LIVE_VIEWS, ...HARVEST_VIEWS]) {
    it(`${name}: the store's rows are node:vm's emits, for exactly the ${LIVE_VIEWS.includes(name) ? 'live documents' : 'harvest records (valued 1 when deleted)'}`, async () => {
      const [ddoc, view] = name.split('/') as [string, string];
      const answer = await db.view(ddoc, view, {});
      const onStore = ordered(answer.rows.map((row) => [row.id, row.key, row.value]));
      const map = mapFunction(`resource_data/${ddoc}/views/${view}/map.js`);
      const inVm = ordered(held.flatMap((doc) => map(doc).map(([key, value]): Row => [String(doc._id), key, value])));
      expect(onStore).to.deep.equal(inVm);
      expect(onStore.length).to.be.above(0);
      const rowIds = [...new Set(onStore.map(([id]) => id))].sort();
      if (LIVE_VIEWS.includes(name)) {
        expect(rowIds).to.deep.equal(ids(isLive));
      } else {
        // by_resource_locator needs a locator and by_schema a schema: those are keys, not states.
        const keyed = (doc: Doc): boolean => (!name.endsWith('by_resource_locator') || locatorsOf(doc).length > 0) && (!name.endsWith('by_schema') || Array.isArray(doc.payload_schema));
        expect(rowIds).to.deep.equal(ids((doc) => keyed(doc) && isHarvestable(doc)));
        for (const [id, , value] of onStore) expect(value, `${id} is deleted`).to.equal(isDeleted(held.find((doc) => doc._id === id) as Doc) ? 1 : 0);
        // Basic Obtain reads harvest's views and keeps the rows valued 0: they must be the live documents.
        const liveRows = [...new Set(onStore.filter(([, , value]) => value === 0).map(([id]) => id))].sort();
        if (name.startsWith('harvest/')) expect(liveRows).to.deep.equal(ids((doc) => keyed(doc) && isLive(doc)));
      }
    });
  }

  /** What `_changes?filter=` answers on the store, with the query parameters the node sends. */
  async function passedByStore(query: Record<string, string>): Promise<string[]> {
    const answer = await couch.request({ db: names.resourceData, path: '_changes', qs: { filter: FILTER, ...query } }) as { results: { id: string }[] };
    return answer.results.map((change) => change.id).sort();
  }
  const passedInVm = (query: Record<string, unknown>): string[] => {
    const filter = filterFunction('resource_data/distribute/filters/live_for_destination.js');
    return ids((doc) => filter(doc, query) === true);
  };

  it(`_changes?filter=${FILTER} with no destination filter passes exactly the distributable documents`, async () => {
    const onStore = await passedByStore({});
    expect(onStore).to.deep.equal(passedInVm({}));
    expect(onStore).to.deep.equal(ids(isDistributable));
    expect(onStore.length).to.be.above(0);
  });

  const descriptions: [string, Doc][] = [
    ['include (the sample filter description)', EXAMPLE_FILTER],
    ['exclude', { ...EXAMPLE_FILTER, include_exclude: false }],
    ['include by a nested key', { active: true, include_exclude: true, filter: [{ filter_key: 'identity.submitter', filter_value: '^Test Agent$' }] }],
    ['include by the node-private owner field (never matches)', { active: true, include_exclude: true, filter: [{ filter_key: 'node_publisher_account', filter_value: 'alice' }] }],
  ];
  for (const [what, description] of descriptions) {
    it(`_changes?filter=${FILTER} with a destination filter description, ${what}: node:vm's answers`, async () => {
      // As the node sends it: query_params.filter_description, one JSON string (replication-step.ts).
      const query = { filter_description: JSON.stringify(description) };
      const onStore = await passedByStore(query);
      expect(onStore).to.deep.equal(passedInVm(query));
      // Never more than the default filter passes.
      for (const id of onStore) expect(ids(isDistributable)).to.include(id);
    });
  }

  it('the filter descriptions above select different documents (the comparison can tell them apart)', async () => {
    const answers = await Promise.all(descriptions.map(([, description]) => passedByStore({ filter_description: JSON.stringify(description) })));
    expect(new Set(answers.map((answer) => answer.join(','))).size).to.be.above(2);
  });
});
