/**
 * Text users choose (a doc_ID, a tag, an identity, a payload_schema) goes into view keys encoded
 * code unit by code unit in the characters 0-9 and a-z only, written the same way by the map
 * functions (design-docs/resource_data, ES5: the one copy in design-docs/lib/code-unit-key.js,
 * spliced into each map that names it; test/unit/storage/design-docs.test.ts checks it against this one).
 *
 * CouchDB collates view keys with ICU (CouchDB docs "Views Collation"): canonically equivalent
 * strings (NFC "é" and NFD "e\u0301") and strings that differ only by ignorable characters (a soft
 * hyphen, a zero-width space, a control character) are equal keys there, while the embedded store
 * compares code units. Keyed as text, such strings made the two stores answer differently: on
 * CouchDB a keyset cursor landed inside a group of keys the store takes for equal, so JSON harvest,
 * OAI-PMH lists and obtain paged forever through eight doc_IDs of one node_timestamp that differ
 * only by ignorable characters, and a slice by tag or identity matched other strings (a
 * differential audit, session 25). Encoded, a key matches exactly and orders by code units on both
 * stores: ICU collates strings of digits and lower-case letters in the order JavaScript compares
 * them (digits first, then letters, each in their usual order; none is ignorable).
 *
 * The code of each unit keeps code-unit order, and no code is the start of another, so encoded
 * texts compare as the texts do (JavaScript's `<`), and a text that begins another encodes to the
 * beginning of the other's key:
 * - a digit or a letter `a`-`w`: one character, its rank among the 36 (`0` → `1` … `9` → `a`,
 *   `a` → `c` … `w` → `y`);
 * - a unit below `0` (a control character, space, `-`, `.`, `/` …): `0` and 2 hex digits;
 * - a unit between `9` and `a` (`:`, upper case, `_` …): `b` and 2 hex digits;
 * - any unit from `x` (x, y, z, and every unit beyond ASCII): `z` and 4 hex digits.
 * The 36 characters hold the 10 digits, 23 letters and the three prefixes `0`, `b` and `z`, which
 * must sit between them for the order to hold: x, y and z, the rarest letters, take a prefix.
 * A urn:uuid doc_ID is 57 characters (45 as text), where 4 hex digits a unit (the layout of
 * session 25, KEY_LAYOUT 2) made 180. The key's length is what the index build costs: CouchDB
 * 3.5 built the slice index (about 15 rows a document) of 20,000 such documents in 26-27 s
 * instead of 42, and the three design docs together in 37-39 s instead of 53-54
 * (docs/benchmarks-log.md, session 32).
 */

/** The key of the views by time, harvest/by_node_timestamp and slice/by_date: [node_timestamp, codeUnitKey(doc_ID)]. */
export type TimeKey = [string, string];

const SYMBOLS = '0123456789abcdefghijklmnopqrstuvwxyz';
const hex = (unit: number, width: number): string => unit.toString(16).padStart(width, '0');

export function codeUnitKey(text: string): string {
  let key = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 48 && unit <= 57) key += SYMBOLS.charAt(unit - 47);
    else if (unit >= 97 && unit <= 119) key += SYMBOLS.charAt(unit - 85);
    else if (unit < 48) key += `0${hex(unit, 2)}`;
    else if (unit < 97) key += `b${hex(unit, 2)}`;
    else key += `z${hex(unit, 4)}`;
  }
  return key;
}

/** The text a codeUnitKey was made from. */
export function textOfKey(key: string): string {
  let text = '';
  for (let i = 0; i < key.length;) {
    const rank = SYMBOLS.indexOf(key.charAt(i));
    if (rank === 0 || rank === 11) {
      text += String.fromCharCode(Number.parseInt(key.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (rank === 35) {
      text += String.fromCharCode(Number.parseInt(key.slice(i + 1, i + 5), 16));
      i += 5;
    } else {
      text += String.fromCharCode(rank <= 10 ? rank + 47 : rank + 85);
      i += 1;
    }
  }
  return text;
}
