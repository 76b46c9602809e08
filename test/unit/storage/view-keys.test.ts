/**
 * The view key encoding (src/storage/view-keys.ts): exact, in code-unit order, in the characters
 * ICU collates as JavaScript compares them; the map functions' shared copy is checked against it
 * in test/unit/storage/design-docs.test.ts, and the maps' keys in test/design-docs.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { codeUnitKey, textOfKey } from '../../../src/storage/view-keys.js';

const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Text of every kind of code unit: ASCII, Latin-1, any BMP unit, lone and paired surrogates. */
const text = fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xff }), fc.integer({ min: 0, max: 0xffff })).map((unit) => String.fromCharCode(unit)), maxLength: 12 });

describe('view keys (codeUnitKey)', () => {
  it('encode each code unit in 0-9 and a-z, and decode to the same text', () => {
    fc.assert(fc.property(text, (value) => {
      const key = codeUnitKey(value);
      expect(key).to.match(/^[0-9a-z]*$/);
      expect(textOfKey(key)).to.equal(value);
    }), { numRuns: 2000 });
  });

  it('order keys as JavaScript orders the texts (code units), a text that begins another first', () => {
    fc.assert(fc.property(text, text, (a, b) => {
      expect(order(codeUnitKey(a), codeUnitKey(b))).to.equal(order(a, b));
    }), { numRuns: 5000 });
    for (const [lower, higher] of [['', 'a'], ['a', 'ab'], ['a-b', 'a0'], ['Z', 'a'], ['w', 'x'], ['z', '\u00e9'], ['\ud800', '\ue000'], ['urn:uuid:0', 'urn:uuid:a']]) {
      expect(codeUnitKey(lower as string) < codeUnitKey(higher as string), `${lower} < ${higher}`).to.equal(true);
    }
  });

  it('keep digits and the letters a-w to one character each, every other unit to 3 or 5', () => {
    expect(codeUnitKey('0189aw')).to.equal('129acy');
    expect(codeUnitKey(' -:A_')).to.equal('020' + '02d' + 'b3a' + 'b41' + 'b5f');
    expect(codeUnitKey('xyz\u00e9\u{1F600}')).to.equal('z0078z0079z007az00e9zd83dzde00');
    expect(codeUnitKey(`urn:uuid:${'6f2c3a1e-0b4d-4c8e-9f10-2a3b4c5d6e7f'}`)).to.have.length(57);
  });
});
