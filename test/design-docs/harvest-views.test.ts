/** Map functions of the `harvest` design doc, in a node:vm sandbox. */
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';
import { codeUnitKey } from '../../src/storage/view-keys.js';

const TS = '2024-01-02T03:04:05.000000Z';
const D1 = codeUnitKey('d1');
const live = { _id: 'd1', doc_ID: 'd1', doc_type: 'resource_data', payload_placement: 'inline', payload_schema: ['nsdl_dc'], resource_locator: 'http://x/1', node_timestamp: TS };
const deletedStates = [
  { ...live, node_deleted: TS },
  { ...live, payload_placement: 'none' },
  { _id: 'd1', doc_ID: 'd1', doc_type: 'tombstone', replaced_by: { doc_ID: 'd2' }, resource_locator: 'http://x/1', node_timestamp: TS },
];
const never = [
  { _id: '_design/x', language: 'javascript' },
  { _id: 'n', doc_type: 'node_description', node_timestamp: TS },
  { ...live, node_timestamp: undefined },
];

describe('design-docs/resource_data/harvest', () => {
  const byTime = mapFunction('resource_data/harvest/views/by_node_timestamp/map.js');
  const byLocator = mapFunction('resource_data/harvest/views/by_resource_locator/map.js');

  it('by_node_timestamp: unique [node_timestamp, codeUnitKey(doc_ID)] key, value 0 for live documents', () => {
    expect(byTime(live)).to.deep.equal([[[TS, D1], 0]]);
  });
  it('by_node_timestamp: value 1 for marked, deletion and tombstone documents', () => {
    for (const doc of deletedStates) expect(byTime(doc), JSON.stringify(doc)).to.deep.equal([[[TS, D1], 1]]);
  });
  it('by_resource_locator: [locator, node_timestamp, codeUnitKey(doc_ID)] with the deleted flag', () => {
    expect(byLocator(live)).to.deep.equal([[['http://x/1', TS, D1], 0]]);
    expect(byLocator(deletedStates[0])).to.deep.equal([[['http://x/1', TS, D1], 1]]);
    expect(byLocator(deletedStates[2])).to.deep.equal([[['http://x/1', TS, D1], 1]]);
    expect(byLocator({ ...live, resource_locator: undefined })).to.deep.equal([]);
  });
  it('by_resource_locator: a row for each locator of an array (0.49.0), strings only', () => {
    // A 0.49.0 document with an array of locators was stored and never found by any of them.
    expect(byLocator({ ...live, resource_locator: ['http://x/1', 7, 'http://x/2'] })).to.deep.equal([
      [['http://x/1', TS, D1], 0], [['http://x/2', TS, D1], 0],
    ]);
    expect(byLocator({ ...live, resource_locator: [] })).to.deep.equal([]);
    expect(byLocator({ ...live, resource_locator: { 0: 'http://x/1' } })).to.deep.equal([]);
  });
  it('keys a doc_ID by its code units, whatever its characters (view-keys.ts)', () => {
    for (const id of ['loop\u00ad', 'q-e\u0301', 'q-\u00e9', '\u{1F600}', 'a b']) {
      expect(byTime({ ...live, _id: id, doc_ID: id })).to.deep.equal([[[TS, codeUnitKey(id)], 0]]);
      expect(byLocator({ ...live, _id: id, doc_ID: id })).to.deep.equal([[['http://x/1', TS, codeUnitKey(id)], 0]]);
    }
  });
  it('nothing for design docs, node documents or documents without node_timestamp', () => {
    for (const doc of never) {
      expect(byTime(doc), JSON.stringify(doc)).to.deep.equal([]);
      expect(byLocator(doc), JSON.stringify(doc)).to.deep.equal([]);
    }
  });
});
