/** The map function of the parked documents' `distribute` design doc, in a node:vm sandbox (the server side: distribution-parked.test.ts). */
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';

describe('design-docs/incoming_parked/distribute/views/by_next_attempt', () => {
  const map = mapFunction('incoming_parked/distribute/views/by_next_attempt/map.js');

  it('keys a parked document by its next try, so the documents due are one range up to now', () => {
    const parked = { _id: 'x', doc: { doc_ID: 'x' }, reason: 'r', first_parked: '2026-11-27T10:00:00.000Z', attempts: 2, next_attempt: '2026-11-27T10:02:00.000Z' };
    expect(map(parked)).to.deep.equal([['2026-11-27T10:02:00.000Z', null]]);
  });

  it('emits nothing for a document without a next try (a design document, anything else)', () => {
    expect(map({ _id: '_design/distribute', views: {} })).to.deep.equal([]);
    expect(map({ _id: 'y', next_attempt: 12 })).to.deep.equal([]);
  });
});
