/**
 * Inline XML payloads are checked at publish (issue 13; spec "OAI-PMH Harvest (XML)": inline
 * resource data is emitted as the record's metadata). A payload OAI-PMH could not emit would be
 * listed by no harvest: it is refused per document instead of being stored. XML payloads are
 * the inline strings that begin with markup, and any inline payload of a format known to be XML.
 */
import { checkedMetadataElement, looksLikeXml, type XmlCheckRecord } from '../../protocol/oai-pmh/metadata-fragment.js';
// (An element in no namespace is accepted: OAI-PMH serves it wrapped, see metadataElement.)

/** Formats whose resource data is XML by definition (the sample corpora's and OAI-PMH's own). */
const XML_FORMATS = new Set(['oai_dc', 'nsdl_dc', 'lom', 'ieee lom', 'comm_para 1.0']);

function namesXmlFormat(doc: Record<string, unknown>): boolean {
  return Array.isArray(doc.payload_schema) && doc.payload_schema.some((schema) => typeof schema === 'string' && XML_FORMATS.has(schema.toLowerCase()));
}

/**
 * Why the inline payload cannot be published as XML (`refusal`), or, when it can, the record of
 * its check for the stored document (none when it is no XML payload), which OAI-PMH emission
 * trusts instead of parsing it again (src/domain/node-private-fields.ts).
 */
export function inlineXmlCheck(doc: Record<string, unknown>): { refusal: string } | { record?: XmlCheckRecord } {
  if (doc.payload_placement !== 'inline') return {};
  const data = doc.resource_data;
  const xmlFormat = namesXmlFormat(doc);
  if (typeof data !== 'string') return xmlFormat ? { refusal: 'the inline resource_data of an XML format must be an XML string' } : {};
  if (!xmlFormat && !looksLikeXml(data)) return {};
  const { element, record } = checkedMetadataElement(data);
  if (!element.ok) return { refusal: `inline XML resource_data: ${element.reason}` };
  return record ? { record } : {};
}
