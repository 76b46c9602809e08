/**
 * Text users choose (a doc_ID, a tag, an identity, a payload_schema) goes into view keys as 4 hex
 * digits per UTF-16 code unit, written the same way by the map functions (design-docs/resource_data,
 * ES5, each with its own copy; test/design-docs checks them against this one).
 *
 * CouchDB collates view keys with ICU (CouchDB docs "Views Collation"): canonically equivalent
 * strings (NFC "é" and NFD "e\u0301") and strings that differ only by ignorable characters (a soft
 * hyphen, a zero-width space, a control character) are equal keys there, while the embedded store
 * compares code units. Keyed as text, such strings made the two stores answer differently: on
 * CouchDB a keyset cursor landed inside a group of keys the store takes for equal, so JSON harvest,
 * OAI-PMH lists and obtain paged forever through eight doc_IDs of one node_timestamp that differ
 * only by ignorable characters, and a slice by tag or identity matched other strings (a
 * differential audit, session 25). Encoded, a key matches exactly and orders by code units on both
 * stores: hex digits collate in code-unit order under ICU as well.
 */

/** The key of the views by time, harvest/by_node_timestamp and slice/by_date: [node_timestamp, codeUnitKey(doc_ID)]. */
export type TimeKey = [string, string];

export function codeUnitKey(text: string): string {
  let key = '';
  for (let i = 0; i < text.length; i += 1) key += text.charCodeAt(i).toString(16).padStart(4, '0');
  return key;
}

/** The text a codeUnitKey was made from. */
export function textOfKey(key: string): string {
  let text = '';
  for (let i = 0; i + 4 <= key.length; i += 4) text += String.fromCharCode(Number.parseInt(key.slice(i, i + 4), 16));
  return text;
}
