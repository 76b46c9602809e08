/** textNestsDeeperThan (src/http/json-body.ts): the nesting depth of JSON text, found without parsing it. */
import { expect } from 'chai';
import fc from 'fast-check';
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

  it('agrees with a byte-by-byte reading on any bytes, JSON or not', () => {
    /** The reading the function replaced: one byte at a time, a backslash skipping the next. */
    const byteByByte = (bytes: Uint8Array, limit: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < bytes.length; i += 1) {
        const byte = bytes[i];
        if (inString) {
          if (byte === 0x5c) i += 1;
          else if (byte === 0x22) inString = false;
        } else if (byte === 0x22) inString = true;
        else if (byte === 0x5b || byte === 0x7b) { depth += 1; if (depth > limit) return true; }
        else if (byte === 0x5d || byte === 0x7d) depth -= 1;
      }
      return false;
    };
    const nasty = fc.array(fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ':', ','), { maxLength: 60 }).map((chars) => Buffer.from(chars.join('')));
    const json = fc.jsonValue({ maxDepth: 6 }).map((value) => text(value));
    fc.assert(fc.property(fc.oneof(nasty, json), fc.integer({ min: 0, max: 6 }), (bytes, limit) => textNestsDeeperThan(bytes, limit) === byteByByte(bytes, limit)), { numRuns: 5000 });
  });
});
