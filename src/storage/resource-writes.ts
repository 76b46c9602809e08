/** Batch reads and writes of resource data documents: one round trip each (_all_docs, _bulk_docs). */
import type { DocumentScope } from 'nano';
import { inStore } from './couch.js';
import type { StoredDoc } from './documents.js';
import { isWellFormedText } from '../domain/well-formed-text.js';

export type WriteResult = { id: string; ok: true; rev: string } | { id: string; ok: false; error: string };

export async function getMany(db: DocumentScope<unknown>, ids: string[]): Promise<Map<string, StoredDoc>> {
  const found = new Map<string, StoredDoc>();
  if (ids.length === 0) return found;
  // An id that is not well-formed text names no stored document, and CouchDB would refuse the whole read.
  const keys = [...new Set(ids)].filter(isWellFormedText);
  if (keys.length === 0) return found;
  const result = await inStore('read documents', () => db.fetch({ keys }));
  for (const row of result.rows) {
    if ('doc' in row && row.doc) found.set(row.id, row.doc as unknown as StoredDoc);
  }
  return found;
}

/** _bulk_docs; CouchDB reports a conflict or a refusal per document, which is returned per document. */
export async function bulkWrite(db: DocumentScope<unknown>, docs: StoredDoc[]): Promise<WriteResult[]> {
  if (docs.length === 0) return [];
  const results = await inStore('store documents', () => db.bulk({ docs: docs as never[] }));
  return results.map((result, index) => {
    const id = result.id ?? docs[index]?._id ?? '';
    if (result.rev && !result.error) return { id, ok: true, rev: result.rev };
    return { id, ok: false, error: result.error === 'conflict' ? 'conflict' : `${result.error ?? 'error'}${result.reason ? `: ${result.reason}` : ''}` };
  });
}
