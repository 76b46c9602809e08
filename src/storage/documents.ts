/** Small typed helpers over one nano database: read-or-undefined, reconcile, create once. */
import { createHash } from 'node:crypto';
import { isConflict, isNotFound, mapCouchError } from './couch.js';
import { liveVersions, shardCopies, writeOne } from './settled-writes.js';
import type { Database, StoredDoc } from './database.js';

export { database, type Database, type StoredDoc } from './database.js';

export async function getOrUndefined<T extends StoredDoc>(db: Database, id: string): Promise<T | undefined> {
  try {
    return (await db.get(id)) as T;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw mapCouchError(error, `read ${id}`);
  }
}

/** Deletes `id` if it exists; one removed or changed by another writer meanwhile is left to that writer. */
export async function removeIfPresent(db: Database, id: string): Promise<void> {
  const doc = await getOrUndefined(db, id);
  if (!doc?._rev) return;
  try {
    await db.destroy(id, doc._rev);
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw mapCouchError(error, `remove ${id}`);
  }
}

function withoutRev(doc: StoredDoc): Record<string, unknown> {
  const { _rev, ...rest } = doc;
  void _rev;
  return rest;
}

/** JSON with every object's keys sorted, at every depth: one text for one content, whatever the key order. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sortedJson(item)}`).join(',')}}`;
}

/**
 * A digest of a document's content as stored (without `_rev`, and as JSON: a key whose value is
 * undefined, which a built document may hold, is no key), whatever the key order at any depth
 * (the store may answer keys in another order than they were written). A stored and a built
 * document compare by their digests, and so do a stored document and the digest recorded when
 * it was written (kept-config.ts).
 */
export function contentDigest(doc: StoredDoc): string {
  return createHash('sha256').update(sortedJson(JSON.parse(JSON.stringify(withoutRev(doc))))).digest('hex');
}

/**
 * Equal content at every depth, whatever the key order: equal digests, so that this and a
 * recorded digest can never disagree. (A comparison that serialised the documents with their sorted
 * top-level key names as JSON.stringify's allow-list dropped every nested key, since the list
 * applies at each depth: a CONFIG change inside `node_policy` or a `service_data` was never written.)
 */
export function sameContent(a: StoredDoc, b: StoredDoc): boolean {
  return contentDigest(a) === contentDigest(b);
}

/** A reconciled document, and whether this call replaced a stored version that had other content. */
export interface Reconciled { doc: StoredDoc; replaced: boolean }

/**
 * Writes `build(existing)` unless the stored document already has that content. On a conflict
 * (another node process wrote it first) it re-reads and tries again, so concurrent start-ups converge.
 */
export async function reconcileDoc(db: Database, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<Reconciled> {
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
 * `create` runs at most once. The document carries `created_at` (settledCreation).
 */
export async function createOnce(db: Database, id: string, create: () => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<StoredDoc> {
  let created: Record<string, unknown> | undefined;
  for (let attempt = 0; ; attempt += 1) {
    const existing = await settledCreation(db, id);
    if (existing) return existing;
    created ??= await create();
    const doc: StoredDoc = { ...created, _id: id, created_at: new Date().toISOString() };
    const written = await writeOne(db, doc, `create ${id}`);
    if (written.ok) return { ...doc, _rev: written.rev };
    // Lost to another creator: its document is read on the next turn. Both can lose only when
    // both writes were contested and withdrawn (cluster copies down): a short pause, then again.
    if (attempt >= 4) throw mapCouchError({ statusCode: 409 }, `create ${id}`);
    await pause(20 + Math.random() * 80);
  }
}

/**
 * How long after its creation a created-once document may still be contested: a settled write
 * reads back and withdraws within milliseconds, a few hundred on a loaded cluster.
 */
export const CREATION_SETTLES_MS = 1500;
/** Reads of a document with several live versions before CouchDB's own winner is taken. */
const CONTESTED_READS = 30;

/**
 * The created-once document as it will stay. A process that read it while its creation was
 * contested (two first versions, one about to be withdrawn) kept the loser's value for good: a
 * cluster audit saw one of three processes started together keep another token secret. So every
 * copy's live versions are read (liveVersions); while there are several it reads again, and a
 * single version younger than CREATION_SETTLES_MS is read again once that age is reached (a
 * competitor that had not reached any copy yet shows by then). Documents written before
 * `created_at` existed are as old as can be. A creator that died before withdrawing its losing
 * version leaves both for good: CouchDB's winner is taken (highest revision), as every reader will.
 */
async function settledCreation(db: Database, id: string): Promise<StoredDoc | undefined> {
  // One copy (the embedded store, a single CouchDB): no write is ever contested, a read is final.
  const copies = await shardCopies(db);
  if (copies === 1) return getOrUndefined(db, id);
  for (let read = 1; ; read += 1) {
    const live = await liveVersions(db, id, copies);
    if (live.length === 0) return undefined;
    if (live.length > 1) {
      if (read >= CONTESTED_READS) return couchWinner(live);
      await pause(100);
      continue;
    }
    const only = live[0] as StoredDoc;
    const age = Date.now() - Date.parse(String(only.created_at));
    // A creation time ahead of this clock (skew between hosts) waits one window at most.
    if (!(age < CREATION_SETTLES_MS) || read > 1) return only;
    await pause(Math.min(CREATION_SETTLES_MS - age, CREATION_SETTLES_MS) + 50);
  }
}

/** CouchDB's choice among live versions: the longest revision history, then the highest revision id. */
function couchWinner(live: StoredDoc[]): StoredDoc {
  const order = (doc: StoredDoc): [number, string] => {
    const [position = '0', hash = ''] = String(doc._rev).split('-');
    return [Number(position), hash];
  };
  return [...live].sort((a, b) => {
    const [pa, ha] = order(a);
    const [pb, hb] = order(b);
    return pb - pa || (hb > ha ? 1 : hb < ha ? -1 : 0);
  })[0] as StoredDoc;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
