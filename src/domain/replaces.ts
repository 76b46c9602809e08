/**
 * A document's `replaces` (spec "Resource Data Description Data Model": the doc_IDs of the
 * documents it replaces), read one way by publish and inbound distribution alike. Both read
 * what a batch replaces before deciding its documents (services/intake/intake-pipeline.ts);
 * ids starting with "_" are never read: CouchDB reserves them (design and local documents), and
 * a document naming one is refused by its own checks (services/intake/document-checks.ts).
 */
import { isRecord } from './is-record.js';

/** The doc_IDs a document's `replaces` names, other than its own. */
export function replacedBy(doc: unknown, docId: string): string[] {
  return isRecord(doc) && Array.isArray(doc.replaces) ? doc.replaces.filter((id): id is string => typeof id === 'string' && id !== docId) : [];
}

/** The ids of `ids` the store may be asked for: not empty, and not reserved by CouchDB. */
export function readableIds(ids: string[]): string[] {
  return ids.filter((id) => id.length > 0 && !id.startsWith('_'));
}

/** Every doc_ID a batch's documents replace that the store may be asked for, read before the batch is decided. */
export function replacedInBatch(docs: unknown[]): string[] {
  return readableIds(docs.flatMap((doc) => (isRecord(doc) && Array.isArray(doc.replaces) ? doc.replaces.filter((id): id is string => typeof id === 'string') : [])));
}
