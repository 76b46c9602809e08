/**
 * OAI-PMH identifiers are URIs (OAI-PMH 2.0 §2.4; OAI-PMH.xsd types `identifier` as xs:anyURI),
 * while a doc_ID is any string (spec "Resource data description document"). A doc_ID that is a
 * URI reference is the record's identifier as it is (spec: identifier = doc_ID); any other is
 * percent-encoded whole, which is always one, so every page stays valid against the schema. A
 * harvester sends that form back, and GetRecord finds the doc_ID by decoding it
 * (`docIdCandidates`).
 */
import formats from 'ajv-formats/dist/formats.js';

const URI_REFERENCE = formats.fullFormats['uri-reference'] as RegExp;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * xs:anyURI (XML Schema 1.0 Part 2 §3.2.17): the characters XLink §5.4 escapes (outside printable
 * ASCII, and space < > " { } | \ ^ `) are escaped, and the result must be an RFC 3986 URI
 * reference. The RFC's rule that a relative reference's first segment holds no colon (§4.2) is
 * checked here, as the pattern does not (libxml2, which validates the responses, does).
 */
export function isAnyUri(text: string): boolean {
  let escaped: string;
  try {
    escaped = text.replace(/[^\x21-\x7e]|[<>"{}|\\^`]/gu, (c) => encodeURIComponent(c));
  } catch {
    return false; // a lone surrogate cannot be escaped
  }
  if (!URI_REFERENCE.test(escaped)) return false;
  return SCHEME.test(escaped) || !/^[^/?#]*:/.test(escaped);
}

/** The record identifier of a doc_ID. */
export function oaiIdentifierOf(docId: string): string {
  return isAnyUri(docId) ? docId : encodeURIComponent(docId);
}

/** The doc_IDs an identifier may stand for: itself, then the doc_ID it encodes (oaiIdentifierOf). */
export function docIdCandidates(identifier: string): string[] {
  try {
    const decoded = decodeURIComponent(identifier);
    return decoded !== identifier && !isAnyUri(decoded) ? [identifier, decoded] : [identifier];
  } catch {
    return [identifier];
  }
}
