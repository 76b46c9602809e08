/** Map functions of the obtain design doc (whose by_node_timestamp also answers /status), in a node:vm sandbox. */
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';

const live = { _id: 'd1', doc_type: 'resource_data', payload_placement: 'inline', resource_locator: 'http://x/1', node_timestamp: '2024-01-02T03:04:05.000000Z' };
const notLive = [
  { ...live, doc_type: 'tombstone' },
  { ...live, node_deleted: '2024-02-01T00:00:00.000000Z' },
  { ...live, payload_placement: 'none' },
  { _id: '_design/x', language: 'javascript' },
  { _id: 'n', doc_type: 'node_description' },
];

describe('design-docs/resource_data/obtain', () => {
  const byTime = mapFunction('resource_data/obtain/views/by_node_timestamp/map.js');
  const byLocator = mapFunction('resource_data/obtain/views/by_resource_locator/map.js');

  it('by_node_timestamp emits a unique [node_timestamp, doc_ID] key for live documents', () => {
    expect(byTime(live)).to.deep.equal([[['2024-01-02T03:04:05.000000Z', 'd1'], null]]);
  });
  it('by_resource_locator emits [locator, node_timestamp, doc_ID]', () => {
    expect(byLocator(live)).to.deep.equal([[['http://x/1', '2024-01-02T03:04:05.000000Z', 'd1'], null]]);
    expect(byLocator({ ...live, resource_locator: undefined })).to.deep.equal([]);
  });
  it('emit nothing for tombstones, marked, deletion and non-resource documents', () => {
    for (const doc of notLive) {
      expect(byTime(doc), JSON.stringify(doc)).to.deep.equal([]);
      expect(byLocator(doc), JSON.stringify(doc)).to.deep.equal([]);
    }
  });
  it('by_node_timestamp skips a document with no node_timestamp (/status counts its rows)', () => {
    expect(byTime({ ...live, node_timestamp: undefined })).to.deep.equal([]);
  });
});
