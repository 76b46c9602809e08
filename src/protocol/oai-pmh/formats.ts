/**
 * Schemas and namespaces of metadata formats this node knows by prefix (OAI-PMH 2.0 §4.4:
 * ListMetadataFormats gives each format's schema and namespace). Other stored formats take
 * them from a document's `payload_schema_locator`: a "namespace schema" pair, as in
 * xsi:schemaLocation, or one URI, the schema's location. `schema` is required (OAI-PMH.xsd; the
 * spec's extension makes only `metadataNamespace` optional): a format no document locates names
 * the node's extension schema, which defines the elements its records without a schema of their
 * own are served in (a JSON or text payload, XML in no namespace).
 */
import { LR_NS, type OaiFormat } from './response.js';
import { isAnyUri } from './identifiers.js';

const KNOWN: Record<string, { schema: string; metadataNamespace: string }> = {
  oai_dc: { schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd', metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/' },
  nsdl_dc: { schema: 'http://ns.nsdl.org/schemas/nsdl_dc/nsdl_dc_v1.02.xsd', metadataNamespace: 'http://ns.nsdl.org/nsdl_dc_v1.02/' },
  lom: { schema: 'http://ltsc.ieee.org/xsd/lomv1.0/lom.xsd', metadataNamespace: 'http://ltsc.ieee.org/xsd/LOM' },
  oai_lom: { schema: 'http://ltsc.ieee.org/xsd/lomv1.0/lom.xsd', metadataNamespace: 'http://ltsc.ieee.org/xsd/LOM' },
  comm_para: { schema: 'http://ns.nsdl.org/ncs/comm_para/1.00/schemas/comm_para.xsd', metadataNamespace: 'http://ns.nsdl.org/ncs/comm_para' },
};

/** OAI-PMH 2.0 metadataPrefixType. */
export const METADATA_PREFIX = /^[A-Za-z0-9\-_.!~*'()]+$/;

const URI = /^[a-z][a-z0-9+.-]*:\S+$/i;

export function describeFormat(prefix: string, payloadSchemaLocator: unknown, extensionSchema: string): OaiFormat {
  const known = KNOWN[prefix.toLowerCase()];
  if (known) return { metadataPrefix: prefix, ...known };
  const parts = typeof payloadSchemaLocator === 'string' ? payloadSchemaLocator.trim().split(/\s+/) : [];
  const [first, second] = parts;
  if (parts.length === 2 && first && second && URI.test(first) && URI.test(second) && isAnyUri(first) && isAnyUri(second)) return { metadataPrefix: prefix, schema: second, metadataNamespace: first };
  if (parts.length === 1 && first && URI.test(first) && isAnyUri(first)) return { metadataPrefix: prefix, schema: first };
  return { metadataPrefix: prefix, schema: extensionSchema };
}

/** The JSON metadataPrefix (spec "OAI-PMH Harvest (XML)"): complete documents in lr:resource_data. */
export function jsonFormat(prefix: string, extensionSchema: string): OaiFormat {
  return { metadataPrefix: prefix, schema: extensionSchema, metadataNamespace: LR_NS };
}
