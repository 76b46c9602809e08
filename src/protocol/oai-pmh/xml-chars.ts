/** XML 1.0 character and name rules (XML 1.0 §2.2, §2.3; Namespaces in XML 1.0 §3). */

/** Characters XML 1.0 does not allow anywhere (controls, lone surrogates, U+FFFE/U+FFFF). */
// eslint-disable-next-line no-control-regex
export const INVALID_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text safe to put in an XML document: characters XML cannot carry are replaced by U+FFFD. */
export function xmlSafe(text: string): string {
  return text.replace(INVALID_XML_CHARS, '\uFFFD');
}

const START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NCNAME = `[${START}][${START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`;
/** A qualified name: NCName or prefix:NCName. */
// XML NameChar includes the combining marks U+0300-U+036F, which this rule flags on purpose.
// eslint-disable-next-line no-misleading-character-class
export const QNAME = new RegExp(`${NCNAME}(?::${NCNAME})?`, 'uy');

/**
 * A string for xmlbuilder2's txt() or an attribute: xmlSafe, with every `&` written as `&amp;`
 * first. xmlbuilder2 escapes only an `&` that does not already start an entity-like reference
 * (`&name;`, `&#10;`), so "&foo;" would pass through as an undefined entity and "&amp;" would
 * come back as "&": pre-escaping makes every `&` such a reference, which it then keeps.
 */
export function xmlText(text: string): string {
  return xmlSafe(text).replace(/&/g, '&amp;');
}

/** Text or a double-quoted attribute value written directly (the record hot path of render.ts). */
export function escapeXml(text: string): string {
  return xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
