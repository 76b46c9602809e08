/**
 * OAI-PMH identifiers are URIs (OAI-PMH 2.0 §2.4; OAI-PMH.xsd types `identifier` as xs:anyURI),
 * while a doc_ID is any string (spec "Resource data description document"). A doc_ID that is a
 * URI reference is the record's identifier as it is (spec: identifier = doc_ID); any other is
 * percent-encoded (oaiIdentifierOf), which always makes one, so every page stays valid against
 * the schema. A harvester sends that form back, and GetRecord finds the doc_ID by decoding it
 * (`docIdCandidates`).
 */
import formats from 'ajv-formats/dist/formats.js';

const URI_REFERENCE = formats.fullFormats['uri-reference'] as RegExp;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** An RFC 3986 URI reference, with the rule the pattern leaves out: a relative reference's first segment holds no colon (§4.2; libxml2 checks it). */
export function isUriReference(text: string): boolean {
  return URI_REFERENCE.test(text) && (SCHEME.test(text) || !/^[^/?#]*:/.test(text));
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
 * The record identifier of a doc_ID: the doc_ID itself when it is a URI reference; else, when
 * escaping its space, non-ASCII and other XLink characters (and `%`, so that decoding gives the
 * doc_ID back) makes one, that (`has space` → `has%20space`, `urn:x:é` → `urn:x:%C3%A9`); else the
 * doc_ID percent-encoded whole (`[x` → `%5Bx`, `1a:b` → `1a%3Ab`). xs:anyURI alone would take
 * `has space` as it is, but OAI-PMH 2.0 §2.4 asks for the URI syntax, and harvesters parse
 * identifiers as URIs (an audit's finding).
 */
export function oaiIdentifierOf(docId: string): string {
  if (isUriReference(docId)) return docId;
  const uri = escaped(docId, true);
  return uri !== undefined && isUriReference(uri) ? uri : encodeURIComponent(docId);
}

/**
 * The doc_IDs an identifier may stand for: itself, then the doc_ID it encodes, when the node
 * would show that doc_ID as this identifier (oaiIdentifierOf). Identifiers shown before, a doc_ID
 * with a space as it is, still find it as the first candidate.
 */
export function docIdCandidates(identifier: string): string[] {
  try {
    const decoded = decodeURIComponent(identifier);
    return decoded !== identifier && oaiIdentifierOf(decoded) === identifier ? [identifier, decoded] : [identifier];
  } catch {
    return [identifier];
  }
}
