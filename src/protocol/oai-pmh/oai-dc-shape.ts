/**
 * Whether well-formed XML is an oai_dc record as oai_dc.xsd and simpledc20021212.xsd define it
 * (the schemas in shared/schemas/oai-pmh): an `oai_dc:dc` root holding only the fifteen DC 1.1
 * elements, each of simple text content with at most `xml:lang`; no other attribute than
 * namespace declarations and `xsi:schemaLocation` (which a validator takes anywhere), no text
 * or CDATA section beside the elements. A payload that says it is oai_dc and is not would make
 * every response carrying it invalid against OAI-PMH.xsd (an audit's finding, session 34);
 * emission builds the record from its DC elements instead (services/oai-pmh/oai-dc.ts).
 *
 * A parse of its own, made only for a root that is `oai_dc:dc` (OAI_DC_ROOT): saxes with close-tag
 * and text handlers beside those of the well-formedness check ran about four times slower on
 * every record (its parser object outgrows V8's fast properties).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { isDcElement } from './crosswalks/oai-dc.js';

export const OAI_DC_ROOT = { uri: 'http://www.openarchives.org/OAI/2.0/oai_dc/', local: 'dc' } as const;
const DC_NS = 'http://purl.org/dc/elements/1.1/';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
/** xml.xsd's lang: xs:language (white space collapsed) or the empty string. */
const LANGUAGE = /^(?:[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*)?$/;
const NOT_XML_SPACE = /[^ \t\r\n]/;

type Attribute = SaxesTagNS['attributes'][string];

const declarationOrLocation = (attribute: Attribute): boolean =>
  attribute.uri === XMLNS_NS || (attribute.uri === XSI_NS && (attribute.local === 'schemaLocation' || attribute.local === 'noNamespaceSchemaLocation'));

const language = (attribute: Attribute): boolean =>
  attribute.uri === XML_NS && attribute.local === 'lang' && LANGUAGE.test(attribute.value.replace(/[ \t\r\n]+/g, ' ').trim());

function tagConforms(tag: SaxesTagNS, depth: number): boolean {
  const attributes = Object.values(tag.attributes);
  if (depth === 0) return tag.uri === OAI_DC_ROOT.uri && tag.local === OAI_DC_ROOT.local && attributes.every(declarationOrLocation);
  return depth === 1 && tag.uri === DC_NS && isDcElement(tag.local) && attributes.every((attribute) => declarationOrLocation(attribute) || language(attribute));
}

class NotOaiDc extends Error {}

/** `xml`: one element, already found well-formed (well-formed.ts); anything else is no oai_dc record. */
export function isOaiDcRecord(xml: string): boolean {
  let depth = 0;
  const parser = new SaxesParser({ xmlns: true });
  const refuse = (): never => { throw new NotOaiDc(); };
  parser.on('error', refuse);
  parser.on('opentag', (tag) => {
    if (!tagConforms(tag, depth)) refuse();
    depth += 1;
  });
  parser.on('closetag', () => { depth -= 1; });
  parser.on('text', (text) => { if (depth === 1 && NOT_XML_SPACE.test(text)) refuse(); });
  parser.on('cdata', () => { if (depth === 1) refuse(); });
  try {
    parser.write(xml).close();
    return true;
  } catch (error) {
    if (error instanceof NotOaiDc) return false;
    throw error;
  }
}
