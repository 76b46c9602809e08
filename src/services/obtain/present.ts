/**
 * A stored document as obtain returns it: its public form (src/domain/resource-document.ts), with only the
 * specification's key-value pairs when the service's spec_kv_only is true (spec "Basic Obtain",
 * rule 6; the field list of "Resources and their fields").
 */
import type { StoredDoc } from '../../storage/documents.js';
import { publicForm } from '../../domain/resource-document.js';

const SPEC_KEYS = new Set([
  'doc_ID', 'doc_type', 'doc_version', 'active', 'TOS', 'identity', 'keys', 'payload_placement', 'payload_schema',
  'payload_schema_locator', 'payload_locator', 'resource_data', 'resource_data_type', 'resource_locator', 'replaces',
  'publish_node', 'update_timestamp', 'node_timestamp', 'create_timestamp', 'digital_signature',
]);

export function presentDocument(doc: StoredDoc, specOnly: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(publicForm(doc))) {
    if (specOnly && !SPEC_KEYS.has(key)) continue;
    result[key] = value;
  }
  return result;
}
