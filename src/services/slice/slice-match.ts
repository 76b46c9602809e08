/**
 * The slice views' rules in TypeScript, for the checks the service makes on fetched documents:
 * identity AND tags reads one index and filters by the other (spec "Slice (optional)": criteria
 * are ANDed), and a document fetched after its view row may have been deleted since. These must
 * stay equal to design-docs/resource_data/slice/views/*\/map.js (the design-doc tests compare them).
 */
import type { StoredDoc } from '../../storage/documents.js';

const IDENTITY_FIELDS = ['submitter', 'curator', 'owner', 'signer'] as const;

export function isLive(doc: StoredDoc): boolean {
  return doc.doc_type === 'resource_data' && !Object.prototype.hasOwnProperty.call(doc, 'node_deleted')
    && doc.payload_placement !== 'none' && typeof doc.node_timestamp === 'string';
}

export function identitiesOf(doc: StoredDoc): Set<string> {
  const identity = doc.identity;
  const names = new Set<string>();
  if (!identity || typeof identity !== 'object') return names;
  for (const field of IDENTITY_FIELDS) {
    const value = (identity as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.trim().length > 0) names.add(value.trim().toLowerCase());
  }
  return names;
}

export function tagsOf(doc: StoredDoc): Set<string> {
  const keys = Array.isArray(doc.keys) ? doc.keys : [];
  return new Set(keys.filter((key): key is string => typeof key === 'string').map((key) => key.trim().toLowerCase()).filter((key) => key.length > 0));
}
