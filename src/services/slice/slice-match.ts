/**
 * The slice views' key rules in TypeScript, for the checks the service makes on fetched documents:
 * identity AND tags reads one index and filters by the other (spec "Slice (optional)": criteria
 * are ANDed). Which documents are live is src/domain/resource-document.ts (isLive). These must
 * stay equal to design-docs/resource_data/slice/views/*\/map.js (the design-doc tests compare them).
 */
import type { StoredDoc } from '../../storage/documents.js';

const IDENTITY_FIELDS = ['submitter', 'curator', 'owner', 'signer'] as const;

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
