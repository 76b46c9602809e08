/** Small typed helpers over one nano database: read-or-undefined, reconcile, _local documents. */
import { isDeepStrictEqual } from 'node:util';
import type { DocumentScope } from 'nano';
import { inStore, isConflict, isNotFound, mapCouchError } from './couch.js';

export type StoredDoc = Record<string, unknown> & { _id: string; _rev?: string };

export async function getOrUndefined<T extends StoredDoc>(db: DocumentScope<unknown>, id: string): Promise<T | undefined> {
  try {
    return (await db.get(id)) as unknown as T;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw mapCouchError(error, `read ${id}`);
  }
}

function withoutRev(doc: StoredDoc): Record<string, unknown> {
  const { _rev, ...rest } = doc;
  void _rev;
  return rest;
}

/**
 * Equal content at every depth, whatever the key order (the store may answer keys in another
 * order than they were written). A comparison that serialised the documents with their sorted
 * top-level key names as JSON.stringify's allow-list dropped every nested key, since the list
 * applies at each depth: a CONFIG change inside `node_policy` or a `service_data` was never written.
 */
function sameContent(a: StoredDoc, b: StoredDoc): boolean {
  // As stored: JSON drops a key whose value is undefined, which a built document may hold.
  const stored = (doc: StoredDoc): unknown => JSON.parse(JSON.stringify(withoutRev(doc)));
  return isDeepStrictEqual(stored(a), stored(b));
}

/**
 * Writes `build(existing)` unless the stored document already has that content. On a conflict
 * (another node process wrote it first) it re-reads and tries again, so concurrent start-ups converge.
 */
export async function reconcileDoc(db: DocumentScope<unknown>, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<StoredDoc> {
  for (let attempt = 0; ; attempt += 1) {
    const existing = await getOrUndefined(db, id);
    const wanted = build(existing);
    if (existing && sameContent(existing, wanted)) return existing;
    try {
      const result = await db.insert({ ...wanted, _id: id, ...(existing?._rev ? { _rev: existing._rev } : {}) } as never);
      return { ...wanted, _id: id, _rev: result.rev };
    } catch (error) {
      if (!isConflict(error) || attempt >= 3) throw mapCouchError(error, `write ${id}`);
    }
  }
}

/** Creates a document once; when another process created it first, theirs is kept and returned. */
export async function createOnce(db: DocumentScope<unknown>, id: string, create: () => Promise<StoredDoc> | StoredDoc): Promise<StoredDoc> {
  const existing = await getOrUndefined(db, id);
  if (existing) return existing;
  const doc = await create();
  try {
    await db.insert({ ...doc, _id: id } as never);
    return { ...doc, _id: id };
  } catch (error) {
    if (!isConflict(error)) throw mapCouchError(error, `create ${id}`);
    return inStore(`read ${id}`, async () => (await db.get(id)) as unknown as StoredDoc);
  }
}
