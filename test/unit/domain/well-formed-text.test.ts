import { expect } from 'chai';
import { holdsIllFormedText, isWellFormedText } from '../../../src/domain/well-formed-text.js';

describe('well-formed text (what CouchDB can store)', () => {
  it('accepts surrogate pairs and plain text, refuses a lone high or low surrogate', () => {
    expect(isWellFormedText('plain, accents é, emoji 😀')).to.equal(true);
    expect(isWellFormedText('a\ud800')).to.equal(false);
    expect(isWellFormedText('\udc00b')).to.equal(false);
    expect(isWellFormedText('\ud83d\ude00')).to.equal(true);
  });
  it('finds a lone surrogate anywhere in a JSON value, keys included', () => {
    expect(holdsIllFormedText({ a: [1, null, { b: 'ok 😀' }] })).to.equal(false);
    expect(holdsIllFormedText({ a: [1, null, { b: 'x\ud800' }] })).to.equal(true);
    expect(holdsIllFormedText({ ['k\udfff']: 1 })).to.equal(true);
  });
});
