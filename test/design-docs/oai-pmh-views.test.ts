/** Map function of the `oai-pmh` design doc, in a node:vm sandbox. */
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';
import { codeUnitKey as key } from '../../src/storage/view-keys.js';

const TS = '2024-01-02T03:04:05.000000Z';
const D1 = key('d1');
const live = { _id: 'd1', doc_ID: 'd1', doc_type: 'resource_data', payload_placement: 'inline', payload_schema: ['NSDL_DC', 'oai_dc', 'nsdl_dc', '', 7], node_timestamp: TS };

describe('design-docs/resource_data/oai-pmh', () => {
  const bySchema = mapFunction('resource_data/oai-pmh/views/by_schema/map.js');

  it('by_schema: one [key(lower-cased schema), node_timestamp, key(doc_ID)] row per distinct schema', () => {
    expect(bySchema(live)).to.deep.equal([[[key('nsdl_dc'), TS, D1], 0], [[key('oai_dc'), TS, D1], 0]]);
  });
  it('keys schemas and doc_IDs by their code units, and a schema named __proto__ too', () => {
    expect(bySchema({ ...live, _id: 'q-e\u0301', payload_schema: ['\u00e4bc', 'a\u0308bc', '__proto__'] })).to.deep.equal([
      [[key('\u00e4bc'), TS, key('q-e\u0301')], 0], [[key('a\u0308bc'), TS, key('q-e\u0301')], 0], [[key('__proto__'), TS, key('q-e\u0301')], 0],
    ]);
  });
  it('deleted states keep their format and carry value 1', () => {
    expect(bySchema({ ...live, payload_schema: ['lom'], node_deleted: TS })).to.deep.equal([[[key('lom'), TS, D1], 1]]);
    expect(bySchema({ _id: 'd1', doc_type: 'tombstone', payload_schema: ['lom'], node_timestamp: TS })).to.deep.equal([[[key('lom'), TS, D1], 1]]);
    expect(bySchema({ ...live, payload_schema: ['lom'], payload_placement: 'none' })).to.deep.equal([[[key('lom'), TS, D1], 1]]);
  });
  it('nothing without a payload_schema array, a node_timestamp, or for other document types', () => {
    expect(bySchema({ ...live, payload_schema: 'nsdl_dc' })).to.deep.equal([]);
    expect(bySchema({ ...live, payload_schema: undefined, payload_placement: 'none' })).to.deep.equal([]);
    expect(bySchema({ ...live, node_timestamp: undefined })).to.deep.equal([]);
    expect(bySchema({ ...live, doc_type: 'service_description' })).to.deep.equal([]);
  });
});
