/**
 * Inline XML payloads are checked at publish (issue 13; spec "OAI-PMH Harvest (XML)": inline
 * resource data is emitted as the record's metadata). A payload OAI-PMH could not emit would be
 * listed by no harvest: it is refused per document instead of being stored. XML payloads are
 * the inline strings that begin with markup, and any inline payload of a format known to be XML.
 */
import { looksLikeXml, metadataElement } from '../../protocol/oai-pmh/metadata-fragment.js';
// (An element in no namespace is accepted: OAI-PMH serves it wrapped, see metadataElement.)

/** Formats whose resource data is XML by definition (the sample corpora's and OAI-PMH's own). */
const XML_FORMATS = new Set(['oai_dc', 'nsdl_dc', 'lom', 'ieee lom', 'comm_para 1.0']);

function namesXmlFormat(doc: Record<string, unknown>): boolean {
  return Array.isArray(doc.payload_schema) && doc.payload_schema.some((schema) => typeof schema === 'string' && XML_FORMATS.has(schema.toLowerCase()));
}

/** Why the inline payload cannot be published as XML, or undefined when it can (or is no XML payload). */
export function inlineXmlRefusal(doc: Record<string, unknown>): string | undefined {
  if (doc.payload_placement !== 'inline') return undefined;
  const data = doc.resource_data;
  const xmlFormat = namesXmlFormat(doc);
  if (typeof data !== 'string') return xmlFormat ? 'the inline resource_data of an XML format must be an XML string' : undefined;
  if (!xmlFormat && !looksLikeXml(data)) return undefined;
  const element = metadataElement(data);
  return element.ok ? undefined : `inline XML resource_data: ${element.reason}`;
}
