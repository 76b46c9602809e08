/** textNestsDeeperThan (src/http/json-body.ts): the nesting depth of JSON text, found without parsing it. */
import { expect } from 'chai';
import { textNestsDeeperThan } from '../../../src/http/json-body.js';

const text = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');

describe('JSON nesting depth, read from the bytes', () => {
  it('counts arrays and objects, and refuses one level past the limit', () => {
    expect(textNestsDeeperThan(text([[[]]]), 3)).to.equal(false);
    expect(textNestsDeeperThan(text([[[[]]]]), 3)).to.equal(true);
    expect(textNestsDeeperThan(text({ a: { b: [1, { c: 2 }] } }), 4)).to.equal(false);
    expect(textNestsDeeperThan(text({ a: { b: [1, { c: 2 }] } }), 3)).to.equal(true);
  });

  it('never counts brackets inside strings, escaped quotes and backslashes included', () => {
    for (const inside of ['[[[[[[', '"[[[[[[', '\\"[[[[[[', '\\\\', '\\\\"[[[[', '{{{{{{']) {
      expect(textNestsDeeperThan(text({ a: inside, b: `${inside}]]]` }), 1), JSON.stringify(inside)).to.equal(false);
    }
    // After a string ending in an escaped backslash, brackets count again.
    expect(textNestsDeeperThan(text(['\\', [[]]]), 2)).to.equal(true);
  });
});
