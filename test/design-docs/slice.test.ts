/** Map functions of the slice design doc, evaluated as PouchDB does: `(<source>)` in a fresh node:vm context. */
import { expect } from 'chai';
import { mapFunction } from '../support/sandbox.js';
import { codeUnitKey as idKey, codeUnitKey as key, textOfKey } from '../../src/storage/view-keys.js';
import { identitiesOf, tagsOf } from '../../src/services/slice/slice-match.js';
import { isLive } from '../../src/domain/resource-document.js';

type Emitted = [unknown, unknown][];

function mapOf(view: string): (doc: Record<string, unknown>) => Emitted {
  return mapFunction(`resource_data/slice/views/${view}/map.js`);
}

const TS = '2024-01-02T03:04:05.123000Z';
const live = {
  _id: 'd1', doc_ID: 'd1', doc_type: 'resource_data', payload_placement: 'inline', node_timestamp: TS,
  identity: { submitter: 'Alice Example', curator: ' NSDL ', owner: 'alice example', signer: 'Signer Co', submitter_type: 'agent' },
  keys: ['Algebra', 'algebra ', 'Math', '', 7, 'Grade 8'],
};
const notLive = [
  { ...live, doc_type: 'tombstone' },
  { ...live, node_deleted: '2024-02-01T00:00:00.000000Z' },
  { ...live, payload_placement: 'none' },
  { ...live, node_timestamp: undefined },
  { _id: '_design/x', language: 'javascript' },
  { _id: 'n', doc_type: 'node_description' },
];
const D1 = idKey('d1');

describe('design-docs/resource_data/slice', () => {
  const byDate = mapOf('by_date');
  const byIdentity = mapOf('by_identity');
  const byTag = mapOf('by_tag');

  it('by_date emits [node_timestamp, id_key] for a live document', () => {
    expect(byDate(live)).to.deep.equal([[[TS, D1], null]]);
  });

  it('a falsy node_deleted is no Basic Delete mark, as for obtain, harvest and distribution (issue 12)', () => {
    for (const node_deleted of [null, false, '']) {
      expect(byDate({ ...live, node_deleted })).to.deep.equal([[[TS, D1], null]]);
      expect(isLive({ ...live, node_deleted })).to.equal(true);
    }
  });

  it('by_identity emits each distinct identity once, lower-cased and trimmed, from all four fields', () => {
    expect(byIdentity(live)).to.deep.equal([
      [[key('alice example'), TS, D1], null],
      [[key('nsdl'), TS, D1], null],
      [[key('signer co'), TS, D1], null],
    ]);
    expect(byIdentity({ ...live, identity: undefined })).to.deep.equal([]);
    expect(byIdentity({ ...live, identity: { owner: 'O' } })).to.deep.equal([[[key('o'), TS, D1], null]]);
    expect(byIdentity({ ...live, identity: { submitter: '__proto__' } })).to.deep.equal([[[key('__proto__'), TS, D1], null]]);
  });

  it('by_tag emits each distinct string key once, lower-cased and trimmed', () => {
    expect(byTag(live)).to.deep.equal([
      [[key('algebra'), TS, D1], null],
      [[key('math'), TS, D1], null],
      [[key('grade 8'), TS, D1], null],
    ]);
    expect(byTag({ ...live, keys: 'not-an-array' })).to.deep.equal([]);
    // Canonically equivalent and ignorable-character variants are other keys (view-keys.ts).
    expect(byTag({ ...live, keys: ['m\u00e4th', 'ma\u0308th', 'ma\u00adth'] }).map(([k]) => textOfKey((k as string[])[0] as string))).to.deep.equal(['m\u00e4th', 'ma\u0308th', 'ma\u00adth']);
  });

  it('every map keys a document by slice-repository\'s idKey, for ids of any characters (one rule in three maps)', () => {
    for (const id of ['d1', 'Ünïcødé', '\u{1F600}x', 'a b/c?d', 'urn:x:\u00a0\u2028']) {
      const expected = idKey(id);
      for (const [name, map] of [['by_date', byDate], ['by_identity', byIdentity], ['by_tag', byTag]] as const) {
        const keys = map({ ...live, _id: id }).map(([key]) => (key as unknown[]).at(-1));
        expect(keys.length, `${name} ${id}`).to.be.greaterThan(0);
        for (const key of keys) expect(key, `${name} ${JSON.stringify(id)}`).to.equal(expected);
      }
    }
  });

  it('emit nothing for tombstones, marked, deletion, undated and non-resource documents', () => {
    for (const doc of notLive) {
      for (const map of [byDate, byIdentity, byTag]) expect(map(doc), JSON.stringify(doc)).to.deep.equal([]);
      if (doc.doc_type === 'resource_data' || doc.doc_type === 'tombstone') expect(isLive(doc as never), JSON.stringify(doc)).to.equal(false);
    }
    expect(isLive(live as never)).to.equal(true);
  });

  it('the service\'s id_key and filters agree with the map functions', () => {
    const id = 'Zz-aé_\u{1F600}.9';
    expect(byDate({ ...live, _id: id })).to.deep.equal([[[TS, idKey(id)], null]]);
    expect([...identitiesOf(live as never)].sort()).to.deep.equal(byIdentity(live).map(([k]) => textOfKey((k as string[])[0] as string)).sort());
    expect([...tagsOf(live as never)].sort()).to.deep.equal(byTag(live).map(([k]) => textOfKey((k as string[])[0] as string)).sort());
  });

  it('id_key order is JavaScript string order (so merged ranges agree with the views)', () => {
    const ids = ['a', 'B', 'b', 'a-b', 'a_b', 'ab', 'a', 'é', '\u{1F600}', 'Z9', 'z', '0'];
    const byId = [...ids].sort();
    const byKey = [...ids].sort((x, y) => (idKey(x) < idKey(y) ? -1 : idKey(x) > idKey(y) ? 1 : 0));
    expect(byKey).to.deep.equal(byId);
    expect(/^[0-9a-z]*$/.test(idKey('\u{1F600}Ab-xyz'))).to.equal(true);
  });
});
