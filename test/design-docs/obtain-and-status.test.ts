/** Map functions of obtain's views (also /status's live count), in a node:vm sandbox; the one design doc of resource_data's views. */
import path from 'node:path';
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';
import { loadDesignDocs } from '../../src/storage/design-docs.js';
import { ACCESS_VIEWS } from '../../src/storage/access-views.js';
import { ROOT } from '../support/process.js';

const live = { _id: 'd1', doc_type: 'resource_data', payload_placement: 'inline', resource_locator: 'http://x/1', node_timestamp: '2024-01-02T03:04:05.000000Z' };
const notLive = [
  { ...live, doc_type: 'tombstone' },
  { ...live, node_deleted: '2024-02-01T00:00:00.000000Z' },
  { ...live, payload_placement: 'none' },
  { _id: '_design/x', language: 'javascript' },
  { _id: 'n', doc_type: 'node_description' },
];

describe('design-docs/resource_data: one design doc of views', () => {
  it('every view of the resource database is in _design/access (one index pass), as src/storage/access-views.ts names them', () => {
    const resourceDocs = loadDesignDocs(path.join(ROOT, 'design-docs')).filter((file) => file.db === 'resource_data').map((file) => file.doc);
    expect(resourceDocs.filter((doc) => doc.views).map((doc) => doc._id)).to.deep.equal(['_design/access']);
    expect(Object.keys(resourceDocs.find((doc) => doc._id === '_design/access')?.views ?? {})).to.have.members([...ACCESS_VIEWS]);
  });
});

describe('design-docs/resource_data/access: obtain_*', () => {
  const byTime = mapFunction('resource_data/access/views/obtain_by_node_timestamp/map.js');
  const byLocator = mapFunction('resource_data/access/views/obtain_by_resource_locator/map.js');

  it('obtain_by_node_timestamp emits a unique [node_timestamp, doc_ID] key for live documents (the key /status reads its earliest datestamp from)', () => {
    expect(byTime(live)).to.deep.equal([[['2024-01-02T03:04:05.000000Z', 'd1'], null]]);
  });
  it('obtain_by_resource_locator emits [locator, node_timestamp, doc_ID]', () => {
    expect(byLocator(live)).to.deep.equal([[['http://x/1', '2024-01-02T03:04:05.000000Z', 'd1'], null]]);
    expect(byLocator({ ...live, resource_locator: undefined })).to.deep.equal([]);
  });
  it('emit nothing for tombstones, marked, deletion and non-resource documents', () => {
    for (const doc of notLive) {
      expect(byTime(doc), JSON.stringify(doc)).to.deep.equal([]);
      expect(byLocator(doc), JSON.stringify(doc)).to.deep.equal([]);
    }
  });
});
