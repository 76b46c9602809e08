/**
 * Whether a document carries a metadata format: its `payload_schema` lists the prefix, compared
 * without case (spec "OAI-PMH Harvest (XML)": documents whose payload_schema does not match the
 * metadataPrefix are skipped; the oai-pmh/by_schema view lower-cases the same way).
 */
export function hasFormat(doc: Record<string, unknown>, prefix: string): boolean {
  const wanted = prefix.toLowerCase();
  return Array.isArray(doc.payload_schema) && doc.payload_schema.some((schema) => typeof schema === 'string' && schema.toLowerCase() === wanted);
}
