/**
 * Drift test (issue 12): every design-doc function that encodes a rule of
 * src/domain/resource-document.ts gives the same answer as that module, for one stored document
 * of every kind (test/fixtures/documents/resource-states.json: live, replacement, marked by Basic
 * Delete, deletion document, tombstone of a replaced and of a deleted document, do_not_distribute,
 * undated, other doc_types, a node document and a design document). The functions run in a
 * node:vm sandbox, as CouchDB's JavaScript query server would run them; the TypeScript rules are
 * the ones the services call.
 */
import { expect } from 'chai';
import { mapFunction, filterFunction } from '../support/sandbox.js';
import { fixture, locatorsOf, type Doc } from '../support/documents.js';
import {
  isDeleted, isDistributable, isHarvestable, isLive, publicForm, resourceState, withoutStoreFields,
} from '../../src/domain/resource-document.js';

const STORED: [string, Doc][] = Object.entries(fixture<{ documents: Record<string, Doc> }>('documents/resource-states.json').documents)
  .map(([id, doc]) => [id, { _id: id, _rev: `1-${'0'.repeat(32)}`, ...doc }]);
const names = (test: (doc: Doc) => boolean): string[] => STORED.filter(([, doc]) => test(doc)).map(([id]) => id).sort();

/** Views whose rows are exactly the live documents (src/domain/resource-document.ts, isLive). */
const LIVE_VIEWS = [
  'resource_data/slice/views/by_date/map.js',
  'resource_data/slice/views/by_identity/map.js',
  'resource_data/slice/views/by_tag/map.js',
];
/** Views of every harvest record (isHarvestable), valued 1 when the record is deleted (isDeleted). */
const HARVEST_VIEWS = [
  'resource_data/harvest/views/by_node_timestamp/map.js',
  'resource_data/harvest/views/by_resource_locator/map.js',
  'resource_data/oai-pmh/views/by_schema/map.js',
];

describe('resource document rules: design-doc functions and src/domain/resource-document.ts agree', () => {
  it('the fixture holds every state, and the TypeScript rule names them as the spec does', () => {
    expect(names(isLive)).to.deep.equal(['do-not-distribute', 'do-not-distribute-false', 'live', 'live-linked', 'live-several-locators', 'node-deleted-false', 'node-deleted-null', 'replacement']);
    expect(names((doc) => resourceState(doc) === 'deletion')).to.deep.equal(['deletion-document', 'deletion-document-with-schema']);
    expect(names((doc) => resourceState(doc) === 'marked')).to.deep.equal(['marked-deleted', 'marked-deleted-true']);
    expect(names((doc) => resourceState(doc) === 'tombstone')).to.deep.equal(['replaced', 'replaced-replacement', 'tombstone-deleted']);
    expect(names(isDistributable)).to.deep.equal([
      'deletion-document', 'deletion-document-with-schema', 'live', 'live-linked', 'live-several-locators', 'no-node-timestamp',
      'node-deleted-false', 'node-deleted-null', 'replaced-replacement', 'replacement',
    ]);
    expect(names(isDeleted)).to.deep.equal(['deletion-document', 'deletion-document-with-schema', 'marked-deleted', 'marked-deleted-true', 'replaced', 'replaced-replacement', 'tombstone-deleted']);
  });

  for (const view of LIVE_VIEWS) {
    it(`${view} emits for a document exactly when it is live`, () => {
      const map = mapFunction(view);
      expect(names((doc) => map(doc).length > 0)).to.deep.equal(names(isLive));
    });
  }

  for (const view of HARVEST_VIEWS) {
    it(`${view} emits every harvest record, valued 1 exactly when it is deleted`, () => {
      const map = mapFunction(view);
      // by_resource_locator needs a locator and by_schema a schema: those are keys, not states.
      const keyed = STORED.filter(([, doc]) => !view.includes('by_resource_locator') || locatorsOf(doc).length > 0)
        .filter(([, doc]) => !view.includes('by_schema') || Array.isArray(doc.payload_schema));
      for (const [id, doc] of STORED) {
        const rows = map(doc);
        const expected = keyed.some(([keyedId]) => keyedId === id) && isHarvestable(doc);
        expect(rows.length > 0, `${id} is a record`).to.equal(expected);
        for (const [, value] of rows) expect(value, `${id} is deleted`).to.equal(isDeleted(doc) ? 1 : 0);
      }
      expect(keyed.length).to.be.above(10);
    });
  }

  // Basic Obtain and distribution read harvest's views and keep the rows valued 0 (src/storage/obtain-repository.ts).
  for (const view of HARVEST_VIEWS.filter((file) => file.includes('/harvest/'))) {
    it(`${view}: the rows valued 0 are exactly the live documents (what Basic Obtain reads)`, () => {
      const map = mapFunction(view);
      const locatorOnly = view.includes('by_resource_locator');
      expect(names((doc) => map(doc).some(([, value]) => value === 0)))
        .to.deep.equal(names((doc) => isLive(doc) && (!locatorOnly || locatorsOf(doc).length > 0)));
    });
  }

  it('the distribution filter passes a document, with no destination filter, exactly when it is distributable', () => {
    const filter = filterFunction('resource_data/distribute/filters/live_for_destination.js');
    expect(names((doc) => filter(doc, {}) === true)).to.deep.equal(names(isDistributable));
  });

  it('the public form has no store member and no node-private field, and nothing else is removed', () => {
    const [, stored] = STORED.find(([id]) => id === 'live') as [string, Doc];
    const withAttachments = { ...stored, _attachments: { 'a.xml': { stub: true } }, _conflicts: ['2-x'] };
    const served = publicForm(withAttachments);
    expect(Object.keys(served).filter((key) => key.startsWith('_'))).to.deep.equal([]);
    expect(served).not.to.have.property('node_publisher_account');
    const { _id, _rev, node_publisher_account: owner, ...rest } = stored;
    void _id; void _rev; void owner;
    expect(served).to.deep.equal(rest);
    expect(withoutStoreFields(withAttachments)).to.deep.equal({ ...rest, node_publisher_account: 'alice' });
  });
});
