/** XML 1.0 character rules (XML 1.0 §2.2) for the text we write. */

/** Characters XML 1.0 does not allow anywhere (controls, lone surrogates, U+FFFE/U+FFFF). */
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text safe to put in an XML document: characters XML cannot carry are replaced by U+FFFD. */
function xmlSafe(text: string): string {
  return text.replace(INVALID_XML_CHARS, '\uFFFD');
}

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
// Ours: xmlbuilder2 exports no escaping function, escape-html also writes ' as &#39;, and neither replaces what XML cannot carry.
export function escapeXml(text: string): string {
  return xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
