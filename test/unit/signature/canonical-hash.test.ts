import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import {
  canonicalHash,
  canonicalHashes,
  canonicalString,
  containsNumbers,
  NUMBER_MODES,
  STRIPPED_FIELDS,
  type NumberMode,
} from '../../../src/domain/signature/canonical-hash.js';
import { bencode, compareCodePoints } from '../../../src/domain/signature/bencode.js';
import { CanonicalHashError } from '../../../src/domain/signature/canonical-hash-error.js';
import { pythonFloatStr } from '../../../src/domain/signature/python-float.js';
import { extractSignedHash } from '../../../src/domain/signature/lr-pgp.js';

const fixtureDir = new URL('../../fixtures/signatures/', import.meta.url);

function loadJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, fixtureDir), 'utf8')) as Record<string, unknown>;
}

interface Vector {
  file: string;
  expected_sha256: string;
  number_mode: string;
  matches: boolean;
  note: string;
}

const vectors = (loadJson('signature-hash-test-vectors.json') as unknown as { vectors: Vector[] }).vectors;

function signatureText(doc: Record<string, unknown>): string {
  const sig = doc.digital_signature as { signature: string };
  return sig.signature;
}

function modesFor(vector: Vector): readonly NumberMode[] {
  if (vector.number_mode.startsWith('keep-int')) return ['keep-int'];
  if (vector.number_mode.startsWith('null')) return ['null'];
  return NUMBER_MODES; // "n/a": no numbers, every mode must agree
}

describe('canonical hash (LR-PGP.1.0)', () => {
  describe('test vectors', () => {
    it('has the four documented vectors', () => {
      expect(vectors).to.have.length(4);
    });

    for (const vector of vectors) {
      describe(vector.file, () => {
        const doc = loadJson(vector.file);

        if (vector.matches) {
          it(`hashes to ${vector.expected_sha256.slice(0, 12)}... (${vector.number_mode})`, () => {
            for (const mode of modesFor(vector)) {
              expect(canonicalHash(doc, mode), mode).to.equal(vector.expected_sha256);
            }
          });

          it('equals the hash in the clear-signed text', () => {
            expect(extractSignedHash(signatureText(doc))).to.equal(vector.expected_sha256);
          });
        } else {
          it('has a clear-signed text that does not match the computed hash', () => {
            const signed = extractSignedHash(signatureText(doc));
            expect(signed).to.equal(vector.expected_sha256);
            for (const { hash } of canonicalHashes(doc)) {
              expect(hash).to.match(/^[0-9a-f]{64}$/);
              expect(hash).to.not.equal(signed);
            }
          });
        }

        it('does not modify the document', () => {
          const before = JSON.stringify(doc);
          canonicalHash(doc, 'null');
          canonicalHash(doc, 'keep-int');
          expect(JSON.stringify(doc)).to.equal(before);
        });
      });
    }

    it('numbers vector: the post-2014 null rule gives the documented non-matching hash', () => {
      const doc = loadJson('rd3-lr-paradata-with-numbers-signed-0.49.json');
      expect(canonicalHash(doc, 'null')).to.equal('56e810c91029e63eebdb54cdf15003ee0f7d1fb6157bbbb3f4303e2f05207e57');
      expect(canonicalString(doc, 'keep-int')).to.contain('8:scaleMini1e');
      expect(canonicalString(doc, 'keep-int')).to.contain('8:scaleMaxi5e');
      expect(canonicalString(doc, 'keep-int')).to.contain('10:sampleSizei1e');
      expect(canonicalString(doc, 'null')).to.contain('8:scaleMax4:null');
    });

    it('inBloom vector: changing inLanguage to [es-ES, es-US] must not match', () => {
      const doc = loadJson('rd3-lrmi-microdata-json-signed-inbloom.json');
      const changed = structuredClone(doc) as {
        resource_data: { items: { properties: { inLanguage: string[] } }[] };
      };
      const item = changed.resource_data.items[0];
      expect(item).to.not.equal(undefined);
      if (item) item.properties.inLanguage = ['es-ES', 'es-US'];
      expect(canonicalHash(changed)).to.not.equal('f01a16e10c15da435049150a1f8fe2b327b75055f0435412ad704f20c263336e');
    });

    it('stripped fields do not change the hash, other fields do', () => {
      const doc = loadJson('rd3-lr-paradata-1.0-as-stored-signed.json');
      const expected = '9d7a8641af4ff330cf6fcfd8942b5e66ad95ccca9e56dfe09063a10e874e1bdd';
      const changed: Record<string, unknown> = { ...doc };
      for (const field of STRIPPED_FIELDS) changed[field] = 'something else';
      expect(canonicalHash(changed)).to.equal(expected);
      const withoutThem: Record<string, unknown> = { ...doc };
      for (const field of STRIPPED_FIELDS) delete withoutThem[field];
      expect(canonicalHash(withoutThem)).to.equal(expected);
      expect(canonicalHash({ ...doc, active: false })).to.not.equal(expected);
      expect(canonicalHash({ ...doc, resource_locator: `${String(doc.resource_locator)}x` })).to.not.equal(expected);
      // publish_node (the spec's spelling) is stripped too, although LRSignature only strips
      // publishing_node: a signer that included it is not reproducible.
      expect(STRIPPED_FIELDS).to.include('publish_node');
      expect(canonicalHash({ ...doc, publish_node: 'x' })).to.equal(expected);
    });

    it('does not depend on key order', () => {
      const doc = loadJson('rd3-lr-paradata-1.0-as-stored-signed.json');
      const reversed = Object.fromEntries(Object.entries(doc).reverse());
      expect(canonicalHash(reversed)).to.equal(canonicalHash(doc));
    });
  });

  describe('normalisation and bencoding', () => {
    it('bencodes strings, integers, lists and sorted dicts', () => {
      expect(bencode('spam')).to.equal('4:spam');
      expect(bencode('')).to.equal('0:');
      expect(bencode(42n)).to.equal('i42e');
      expect(bencode(-3n)).to.equal('i-3e');
      expect(bencode(['spam', 'eggs'])).to.equal('l4:spam4:eggse');
      expect(bencode({ spam: ['a', 'b'], cow: 'moo' })).to.equal('d3:cow3:moo4:spaml1:a1:bee');
      expect(bencode({})).to.equal('de');
      expect(bencode([])).to.equal('le');
    });

    it('normalises null and booleans to strings', () => {
      expect(canonicalString({ a: null, b: true, c: false, d: [null, true] })).to.equal(
        'd1:a4:null1:b4:true1:c5:false1:dl4:null4:trueee',
      );
    });

    it("'null' mode: numbers in dicts become \"null\", numbers in lists are dropped", () => {
      expect(canonicalString({ n: 5, f: 1.5, l: [1, 'x', 2.5, [3]] }, 'null')).to.equal(
        'd1:f4:null1:ll1:xlee1:n4:nulle',
      );
    });

    it("'keep-int' mode: integers as bencode integers, floats as Python 2 str()", () => {
      expect(canonicalString({ n: 5, z: 0, neg: -7, f: 1.5, l: [1, 0.1, 2.5e-7] }, 'keep-int')).to.equal(
        'd1:f3:1.51:lli1e3:0.17:2.5e-07e1:ni5e3:negi-7e1:zi0ee',
      );
      // Integral values are integers once parsed by JS, whatever the JSON spelling (5.0, 1e16).
      expect(canonicalString(JSON.parse('{"a":5.0,"b":1e16}'), 'keep-int')).to.equal('d1:ai5e1:bi10000000000000000ee');
    });

    it('formats floats like Python 2 str(float)', () => {
      const cases: [number, string][] = [
        [1.5, '1.5'],
        [0.1, '0.1'],
        [-2.25, '-2.25'],
        [1 / 3, '0.333333333333'],
        [2 / 3, '0.666666666667'],
        [1e16, '1e+16'],
        [1e-5, '1e-05'],
        [0.0001, '0.0001'],
        [123456789012.5, '1.23456789012e+11'], // exact tie, rounded half to even
        [123456789013.5, '1.23456789014e+11'],
        [12345678901.5, '12345678901.5'],
        [12345678902.0, '12345678902.0'],
        [999999999999.5, '1e+12'],
        [1234567890123.4, '1.23456789012e+12'],
        [123456.789, '123456.789'],
        [-2.5e-7, '-2.5e-07'],
        [1.7976931348623157e308, '1.79769313486e+308'],
        [5e-324, '4.94065645841e-324'],
        [0, '0.0'],
        [100, '100.0'],
      ];
      for (const [x, expected] of cases) expect(pythonFloatStr(x), String(x)).to.equal(expected);
    });

    it('uses character counts (not UTF-8 byte counts) as string lengths, then hashes UTF-8', () => {
      expect(canonicalString({ 'clé': 'café' })).to.equal('d3:clé4:cafée');
      expect(canonicalString({ k: '日本語' })).to.equal('d1:k3:日本語e');
      // Astral characters count as one character (code point).
      expect(canonicalString({ k: '😀' })).to.equal('d1:k1:😀e');
      // The ends of the surrogate ranges: U+10000 (D800 DC00), U+1D7FF (D835 DFFF), U+10FFFF (DBFF DFFF); a lone surrogate counts one.
      expect(canonicalString({ k: '\u{10000}\u{1D7FF}\u{10FFFF}' })).to.equal('d1:k3:\u{10000}\u{1D7FF}\u{10FFFF}e');
      expect(canonicalString({ k: '\ud800x' })).to.equal('d1:k2:\ud800xe');
      const expected = createHash('sha256').update('d1:k3:日本語e', 'utf8').digest('hex');
      expect(canonicalHash({ k: '日本語' })).to.equal(expected);
    });

    it('sorts keys by code point', () => {
      expect(canonicalString({ b: '1', a: '2', B: '3', é: '4', '': '5' })).to.equal('d0:1:51:B1:31:a1:21:b1:11:é1:4e');
      expect(compareCodePoints('\uffff', '😀')).to.be.lessThan(0);
      expect(compareCodePoints('a', 'ab')).to.be.lessThan(0);
      expect(compareCodePoints('ab', 'ab')).to.equal(0);
    });

    it('strips only top-level envelope fields', () => {
      const doc = {
        doc_ID: 'x',
        _id: 'x',
        _rev: '1-x',
        digital_signature: { signature: 's' },
        publishing_node: 'n',
        update_timestamp: 't',
        node_timestamp: 't',
        create_timestamp: 't',
        resource_data: { doc_ID: 'kept', _id: 'kept' },
      };
      expect(canonicalString(doc)).to.equal('d13:resource_datad3:_id4:kept6:doc_ID4:keptee');
    });

    it('treats undefined like JSON does', () => {
      expect(canonicalString({ a: undefined, b: [undefined] })).to.equal('d1:bl4:nullee');
    });

    it('refuses non-objects and values JSON cannot carry', () => {
      expect(() => canonicalHash(null)).to.throw(CanonicalHashError);
      expect(() => canonicalHash([1])).to.throw(CanonicalHashError);
      expect(() => canonicalHash('x')).to.throw(CanonicalHashError);
      expect(() => canonicalHash({ f: () => 1 })).to.throw(CanonicalHashError);
      expect(() => canonicalHash({ n: Number.NaN }, 'keep-int')).to.throw(CanonicalHashError);
      // In 'null' mode every number, even NaN, becomes "null" as in LRSignature.
      expect(canonicalString({ n: Number.NaN }, 'null')).to.equal('d1:n4:nulle');
    });

    it('detects numbers', () => {
      expect(containsNumbers({ a: ['x', { b: 1 }] })).to.equal(true);
      expect(containsNumbers({ a: ['x', { b: '1' }], c: null, d: true })).to.equal(false);
    });

    it('returns one hash per mode', () => {
      const hashes = canonicalHashes({ a: 1 });
      expect(hashes.map((h) => h.mode)).to.deep.equal(['null', 'keep-int']);
      expect(hashes[0]?.hash).to.not.equal(hashes[1]?.hash);
    });
  });

  describe('differential against CPython 2.7 (fixture generated by the reference algorithm)', () => {
    const differential = loadJson('python27-differential.json') as unknown as {
      envelopes: { json: string; null: string; 'keep-int': string }[];
      floats: { json: string; str: string }[];
    };

    it(`reproduces ${differential.envelopes.length} random envelopes in both number modes`, () => {
      expect(differential.envelopes.length).to.be.greaterThan(100);
      for (const [index, entry] of differential.envelopes.entries()) {
        const doc: unknown = JSON.parse(entry.json);
        expect(canonicalHash(doc, 'null'), `envelope ${index} null`).to.equal(entry.null);
        expect(canonicalHash(doc, 'keep-int'), `envelope ${index} keep-int`).to.equal(entry['keep-int']);
      }
    });

    it(`formats ${differential.floats.length} random floats like Python 2.7 str()`, () => {
      for (const entry of differential.floats) {
        expect(pythonFloatStr(JSON.parse(entry.json) as number), entry.json).to.equal(entry.str);
      }
    });
  });
});
