/**
 * LR-PGP.1.0 canonical hash of a Learning Registry envelope (resource data document).
 *
 * This reproduces the reference implementation (LRSignature, `Sign.get_message`):
 *
 *  1. copy the envelope and delete the top-level keys in {@link STRIPPED_FIELDS};
 *  2. normalise values ("_bnormal"): `null` -> `"null"`, `true`/`false` -> `"true"`/`"false"`,
 *     strings unchanged, numbers according to the {@link NumberMode};
 *  3. bencode the result, dictionary keys sorted, every string length prefix being the
 *     number of characters of the (unicode) string - NOT its UTF-8 byte length;
 *  4. UTF-8 encode the bencoded text and return its SHA-256 as lowercase hex.
 *
 * The digest is what the signer clear-signs with PGP (lr-pgp-sign.ts; lr-pgp-verify.ts checks it).
 *
 * Two historical number rules exist and both are found in signed documents in the wild:
 *
 *  - `'null'` (LRSignature from Feb 2014 on): a number that is a dictionary value becomes the
 *    string `"null"`, a number inside a list is dropped from the list.
 *  - `'keep-int'` (pre-2014 clients): integers are bencoded as integers (`i5e`), floats are
 *    turned into strings the way Python 2.7 `str(float)` prints them (12 significant digits,
 *    `"2.5"`, `"1e-05"`, `"1.23456789012e+11"`).
 *
 * JavaScript limitations of the `'keep-int'` mode, which cannot be fixed once the JSON has been
 * parsed: a JSON number written with a fraction but an integral value (`5.0`) was a float in
 * Python (`"5.0"`) but is indistinguishable from `5` here (`i5e`); integers beyond 2^53 have
 * already lost precision.
 *
 * Bencoding (bencode.ts) counts characters and sorts keys by Unicode code point; floats are
 * formatted by python-float.ts.
 */
import { createHash } from 'node:crypto';
import { NODE_PRIVATE_FIELDS } from '../node-private-fields.js';
import { bencode, type BencodeValue } from './bencode.js';
import { CanonicalHashError } from './canonical-hash-error.js';
import { pythonFloatStr } from './python-float.js';

/** Number normalisation rule; see the module comment. */
export type NumberMode = 'null' | 'keep-int';

/** The current LRSignature rule (numbers become "null" / are dropped from lists). */
export const NUMBER_MODE_NULL: NumberMode = 'null';
/** The pre-2014 rule (integers kept as bencode integers, floats as Python 2 strings). */
export const NUMBER_MODE_KEEP_INT: NumberMode = 'keep-int';
/** Every historical mode, the current one first: the order in which a verifier should try them. */
export const NUMBER_MODES: readonly NumberMode[] = [NUMBER_MODE_NULL, NUMBER_MODE_KEEP_INT];

/** Top-level envelope fields excluded from the hash (LRSignature's `_stripEnvelope`, plus the spec's `publish_node`). */
export const STRIPPED_FIELDS: readonly string[] = [
  'digital_signature',
  'publishing_node',
  // The spec's spelling of publishing_node (spec "Resources and their fields"): node-set, never signed.
  'publish_node',
  'update_timestamp',
  'node_timestamp',
  'create_timestamp',
  'doc_ID',
  '_id',
  '_rev',
  // Node-private: the publishing account, publish's XML check (src/domain/node-private-fields.ts).
  ...NODE_PRIVATE_FIELDS,
];

const DROP = Symbol('drop');

function normaliseNumber(x: number, mode: NumberMode): BencodeValue | typeof DROP {
  if (mode === 'null') return DROP;
  if (!Number.isFinite(x)) {
    // JSON cannot carry NaN/Infinity; refuse rather than guess.
    throw new CanonicalHashError(`non-finite number ${x} cannot be hashed`);
  }
  if (Number.isInteger(x)) return BigInt(x);
  return pythonFloatStr(x);
}

function normalise(value: unknown, mode: NumberMode, path: string): BencodeValue | typeof DROP {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return normaliseNumber(value, mode);
    case 'bigint':
      return mode === 'null' ? DROP : value;
    case 'object': {
      if (Array.isArray(value)) {
        const out: BencodeValue[] = [];
        value.forEach((child: unknown, index) => {
          // JSON.stringify turns holes/undefined in arrays into null: do the same.
          const n = normalise(child === undefined ? null : child, mode, `${path}[${index}]`);
          if (n !== DROP) out.push(n);
        });
        return out;
      }
      const out: { [key: string]: BencodeValue } = {};
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        if (child === undefined) continue; // absent in JSON
        const n = normalise(child, mode, `${path}.${key}`);
        // A number as a dictionary value becomes "null" in the post-2014 rule.
        out[key] = n === DROP ? 'null' : n;
      }
      return out;
    }
    default:
      throw new CanonicalHashError(`unsupported value of type ${typeof value} at ${path}`);
  }
}

function assertEnvelope(doc: unknown): asserts doc is Record<string, unknown> {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new CanonicalHashError('an envelope must be a JSON object');
  }
}

/** The stripped and normalised envelope, ready for {@link bencode}. Does not modify `doc`. */
function normaliseEnvelope(doc: unknown, mode: NumberMode = NUMBER_MODE_NULL): BencodeValue {
  assertEnvelope(doc);
  const stripped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!STRIPPED_FIELDS.includes(key)) stripped[key] = value;
  }
  const normalised = normalise(stripped, mode, '$');
  if (normalised === DROP) throw new CanonicalHashError('unexpected top-level value');
  return normalised;
}

/** The canonical (bencoded, not yet hashed) string of an envelope. */
export function canonicalString(doc: unknown, mode: NumberMode = NUMBER_MODE_NULL): string {
  return bencode(normaliseEnvelope(doc, mode));
}

/**
 * The LR-PGP.1.0 canonical hash: lowercase hex SHA-256 of the UTF-8 canonical string.
 * `doc` is not modified. Throws {@link CanonicalHashError} if `doc` is not a JSON object or
 * contains values JSON cannot represent.
 */
export function canonicalHash(doc: unknown, mode: NumberMode = NUMBER_MODE_NULL): string {
  return createHash('sha256').update(canonicalString(doc, mode), 'utf8').digest('hex');
}

/** The canonical hash under every historical number mode (equal values when `doc` has no numbers). */
export function canonicalHashes(doc: unknown): { mode: NumberMode; hash: string }[] {
  return NUMBER_MODES.map((mode) => ({ mode, hash: canonicalHash(doc, mode) }));
}

/** Whether `doc` contains any number (in which case the number modes give different hashes). */
export function containsNumbers(value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'bigint') return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value as Record<string, unknown>).some(containsNumbers);
}
