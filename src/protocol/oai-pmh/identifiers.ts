/**
 * OAI-PMH identifiers are URIs (OAI-PMH 2.0 §2.4; OAI-PMH.xsd types `identifier` as xs:anyURI),
 * while a doc_ID is any string (spec "Resource data description document"). A doc_ID that is a
 * URI reference without `%` is the record's identifier as it is (spec: identifier = doc_ID); any
 * other is percent-encoded (oaiIdentifierOf), which always makes one, so every page stays valid
 * against the schema. So an identifier holding `%` is always an encoded doc_ID, and decoding it
 * gives that doc_ID: two records never share an identifier (OAI-PMH 2.0 §2.4: an identifier
 * "unambiguously identifies an item"). Shown as it was, the doc_ID `doc%20pct` and the doc_ID
 * `doc pct`, encoded, were both `doc%20pct` (a differential audit, session 25). A harvester sends
 * that form back, and GetRecord finds the doc_ID by decoding it (`docIdCandidates`).
 */
import formats from 'ajv-formats/dist/formats.js';

const URI_REFERENCE = formats.fullFormats['uri-reference'] as RegExp;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** The characters RFC 3986 §2 lets stand in a URI (unreserved, reserved, and `%` of an escape). */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/**
 * An RFC 3986 URI reference, with the rules the pattern leaves out: only the characters of §2
 * (it lets `"` through, which an identifier then showed as it is: an audit's finding), and a
 * relative reference's first segment holds no colon (§4.2; libxml2 checks it).
 */
export function isUriReference(text: string): boolean {
  return URI_CHARACTERS.test(text) && URI_REFERENCE.test(text) && (SCHEME.test(text) || !/^[^/?#]*:/.test(text));
}

/**
 * `text` with the characters XLink §5.4 escapes (outside printable ASCII, and space < > " { } | \ ^ `)
 * percent-encoded as UTF-8, and `%` too when `percent` is set; undefined for a lone surrogate.
 */
function escaped(text: string, percent: boolean): string | undefined {
  try {
    return text.replace(percent ? /[^\x21-\x7e]|[<>"{}|\\^`%]/gu : /[^\x21-\x7e]|[<>"{}|\\^`]/gu, (c) => encodeURIComponent(c));
  } catch {
    return undefined;
  }
}

/**
 * xs:anyURI (XML Schema 1.0 Part 2 §3.2.17): once the XLink characters are escaped, an RFC 3986
 * URI reference. What a request's identifier may be: harvesters send the anyURI they were given.
 */
export function isAnyUri(text: string): boolean {
  const uri = escaped(text, false);
  return uri !== undefined && isUriReference(uri);
}

/**
 * The record identifier of a doc_ID: the doc_ID itself when it is a URI reference without `%`;
 * else, when escaping its space, non-ASCII and other XLink characters, and `%`, makes one, that
 * (`has space` → `has%20space`, `urn:x:é` → `urn:x:%C3%A9`, `a%20b` → `a%2520b`); else the doc_ID
 * percent-encoded whole (`[x` → `%5Bx`, `1a:b` → `1a%3Ab`). xs:anyURI alone would take
 * `has space` as it is, but OAI-PMH 2.0 §2.4 asks for the URI syntax, and harvesters parse
 * identifiers as URIs (an audit's finding).
 */
export function oaiIdentifierOf(docId: string): string {
  if (isUriReference(docId) && !docId.includes('%')) return docId;
  const uri = escaped(docId, true);
  return uri !== undefined && isUriReference(uri) ? uri : encodeURIComponent(docId);
}

/**
 * The doc_IDs an identifier may stand for, in order: the doc_ID the node shows as this identifier
 * (oaiIdentifierOf), then the identifier itself, as earlier versions showed a doc_ID with a space,
 * or a URI reference with `%`, as it was: their harvesters still find it.
 */
export function docIdCandidates(identifier: string): string[] {
  if (!identifier.includes('%')) return [identifier];
  try {
    const decoded = decodeURIComponent(identifier);
    return oaiIdentifierOf(decoded) === identifier ? [decoded, identifier] : [identifier];
  } catch {
    return [identifier];
  }
}
