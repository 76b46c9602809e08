/** Small typed helpers over one nano database: read-or-undefined, reconcile, create once. */
import { isDeepStrictEqual } from 'node:util';
import type { DocumentScope } from 'nano';
import { isNotFound, mapCouchError } from './couch.js';
import { writeOne } from './settled-writes.js';

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

/** A reconciled document, and whether this call replaced a stored version that had other content. */
export interface Reconciled { doc: StoredDoc; replaced: boolean }

/**
 * Writes `build(existing)` unless the stored document already has that content. On a conflict
 * (another node process wrote it first) it re-reads and tries again, so concurrent start-ups converge.
 */
export async function reconcileDoc(db: DocumentScope<unknown>, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<Reconciled> {
  for (let attempt = 0; ; attempt += 1) {
    const existing = await getOrUndefined(db, id);
    const wanted = build(existing);
    if (existing && sameContent(existing, wanted)) return { doc: existing, replaced: false };
    const written = await writeOne(db, { ...wanted, _id: id, ...(existing?._rev ? { _rev: existing._rev } : {}) }, `write ${id}`);
    if (written.ok) return { doc: { ...wanted, _id: id, _rev: written.rev }, replaced: existing !== undefined };
    if (attempt >= 3) throw mapCouchError({ statusCode: 409 }, `write ${id}`);
  }
}

/**
 * Creates a document once; when another process created it first, theirs is kept and returned.
 * An ordinary document, not a `_local/` one: on a CouchDB cluster two coordinators writing one
 * `_local/` id at once both answer 201 and the shard copies can keep different values for good
 * (measured on the fixture: 4 of 40 pairs, which is how two processes started together kept two
 * token secrets), where an ordinary document's concurrent creation is settled (settled-writes.ts).
 * `create` runs at most once.
 */
export async function createOnce(db: DocumentScope<unknown>, id: string, create: () => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<StoredDoc> {
  let created: Record<string, unknown> | undefined;
  for (let attempt = 0; ; attempt += 1) {
    const existing = await getOrUndefined(db, id);
    if (existing) return existing;
    created ??= await create();
    const doc: StoredDoc = { ...created, _id: id };
    const written = await writeOne(db, doc, `create ${id}`);
    if (written.ok) return { ...doc, _rev: written.rev };
    // Lost to another creator: its document is read on the next turn. Both can lose only when
    // both writes were contested and withdrawn (cluster copies down): a short pause, then again.
    if (attempt >= 4) throw mapCouchError({ statusCode: 409 }, `create ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  }
}
