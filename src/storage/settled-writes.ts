/**
 * Writes through `_bulk_docs` whose answer means the same on a CouchDB cluster as on one server.
 *
 * On one server a write either lands or is a conflict. On a cluster, each document goes to its
 * n shard copies and CouchDB answers when w of them took it; when fewer did, the result still
 * says `ok` but carries `"accepted": true` (CouchDB "/{db}/_bulk_docs", 202 Accepted). Measured
 * on the three-member fixture (n = 3), two coordinators creating one id at once: 13 of 40 pairs
 * were "ok" for one and "accepted" for the other, and after internal replication the document
 * held both revisions, CouchDB's winner chosen by revision hash, so the accepted write was the
 * winner in some pairs. Both writers had been told they wrote it.
 *
 * An accepted write is settled here before anyone is told: every copy is read (r = n, which
 * also sees a revision that only one copy holds), and if another live revision of the document
 * exists, ours is withdrawn (deleted on its branch) and reported as a conflict. The write CouchDB
 * confirmed then stays the only live revision: first confirmed writer wins, as on one server.
 * An accepted write nobody contested (copies down, not a race) stands. On one server and on the
 * embedded store nothing is ever accepted, and this costs nothing.
 */
import { inStore, isConflict, isNotFound, mapCouchError } from './couch.js';
import { ConcurrencyLimit } from '../domain/concurrency-limit.js';
import type { Database, StoredDoc } from './database.js';

export type WriteResult = { id: string; ok: true; rev: string } | { id: string; ok: false; error: string };

const SETTLE_READS_AT_ONCE = 8;

interface BulkAnswer { id?: string; rev?: string; error?: string; reason?: string; accepted?: boolean }

/** _bulk_docs; CouchDB reports a conflict or a refusal per document, which is returned per document. */
export async function bulkWrite(db: Database, docs: StoredDoc[]): Promise<WriteResult[]> {
  if (docs.length === 0) return [];
  const answers = await inStore('store documents', () => db.bulk({ docs: docs as never[] })) as BulkAnswer[];
  const results = answers.map((answer, index): WriteResult => {
    const id = answer.id ?? docs[index]?._id ?? '';
    if (answer.rev && !answer.error) return { id, ok: true, rev: answer.rev };
    return { id, ok: false, error: answer.error === 'conflict' ? 'conflict' : `${answer.error ?? 'error'}${answer.reason ? `: ${answer.reason}` : ''}` };
  });
  const accepted = answers.flatMap((answer, index) => (answer.accepted === true && results[index]?.ok ? [index] : []));
  if (accepted.length === 0) return results;
  const copies = await shardCopies(db);
  // With copies down every write of a batch is accepted: its reads back go a few at a time.
  const reads = new ConcurrencyLimit(SETTLE_READS_AT_ONCE);
  await Promise.all(accepted.map((index) => reads.run(async () => {
    const result = results[index] as WriteResult & { ok: true };
    const standing = await settle(db, docs[index] as StoredDoc, result.rev, copies);
    results[index] = standing === undefined ? { id: result.id, ok: false, error: 'conflict' } : { id: result.id, ok: true, rev: standing };
  })));
  return results;
}

/** One document; a conflict (lost race) is a result, any other failure an error. */
export async function writeOne(db: Database, doc: StoredDoc, what: string): Promise<{ ok: true; rev: string } | { ok: false }> {
  const [result] = await bulkWrite(db, [doc]);
  if (result?.ok) return { ok: true, rev: result.rev };
  if (result?.error === 'conflict') return { ok: false };
  throw mapCouchError({ statusCode: 400, error: result?.error ?? 'error' }, what);
}

/** The database's shard copies (CouchDB's `cluster.n`; 1 on the embedded store, which has none). */
export async function shardCopies(db: Database): Promise<number> {
  const info = await inStore('read database information', () => db.info()) as { cluster?: { n?: unknown } };
  const n = info.cluster?.n;
  return typeof n === 'number' && n >= 1 ? n : 1;
}

/**
 * The revision under which an accepted write stands, or undefined when it lost (withdrawn). The
 * leaves are read with `open_revs=all` and r = n, which merges every copy's revisions: on the
 * fixture it showed the competing revision in 5 of 5 races, where `conflicts=true` with the same
 * r showed it in 1 of 5 (that answer's `_conflicts` comes from one copy's revision tree).
 */
async function settle(db: Database, doc: StoredDoc, rev: string, copies: number, round = 0): Promise<string | undefined> {
  const live = await liveRevisions(db, doc._id, copies);
  // A live branch read back: a deletion of ours did not take (a live branch wins over a deleted one).
  if (doc._deleted === true) return live.length === 0 ? rev : undefined;
  if (live.every((liveRev) => liveRev === rev)) return rev;
  const withdrawn = await withdraw(db, doc._id, rev);
  // Two writes both accepted (a copy down), each seeing the other's, both withdraw: no live
  // revision would be left, and an update's previous version is no leaf any more, so the
  // document would be gone. After a random pause, the first to look puts its own version back,
  // as a write of its own, and the other finds it there and stands down. (Should both still
  // come back at once, the round repeats, RESTORE_ROUNDS times at most.)
  if (!withdrawn || round >= RESTORE_ROUNDS) return undefined;
  await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  if ((await liveRevisions(db, doc._id, copies)).length > 0) return undefined;
  // Without a revision: CouchDB takes a new version of a document whose every leaf is deleted
  // only so (one naming the deleted leaf is a conflict), and refuses it once either writer's
  // version is back, so only one of two comes back.
  const { _rev: ours, ...content } = doc;
  void ours;
  const [answer] = await inStore('store documents', () => db.bulk({ docs: [content] as never[] })) as BulkAnswer[];
  if (!answer?.rev || answer.error) return undefined;
  return answer.accepted === true ? settle(db, doc, answer.rev, copies, round + 1) : answer.rev;
}

const RESTORE_ROUNDS = 2;

/** The document's live leaf revisions, merged from every copy. */
async function liveRevisions(db: Database, id: string, copies: number): Promise<string[]> {
  return (await liveVersions(db, id, copies)).map((doc) => String(doc._rev));
}

/** The document's live versions (one, or several while a write is contested), merged from `copies` copies (shardCopies). */
export async function liveVersions(db: Database, id: string, copies: number): Promise<StoredDoc[]> {
  try {
    // `open_revs` and `r` are CouchDB document GET parameters nano's types do not list.
    const leaves = await db.get(id, { open_revs: 'all', r: copies } as never) as unknown as { ok?: StoredDoc & { _deleted?: boolean } }[];
    return leaves.flatMap((leaf) => (leaf.ok && leaf.ok._deleted !== true ? [leaf.ok] : []));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw mapCouchError(error, `read ${id} back`);
  }
}

/** Deletes our revision on its branch; false when ours is no leaf any more. */
async function withdraw(db: Database, id: string, rev: string): Promise<boolean> {
  try {
    await db.destroy(id, rev);
    return true;
  } catch (error) {
    // A conflict: our revision is no leaf any more (a copy that took it took a later edit too).
    // Any other failure leaves our revision live, maybe as the winner: the write's outcome is
    // unknown, which the caller must hear as an error, not as a conflict.
    if (isConflict(error)) return false;
    throw mapCouchError(error, `withdraw ${id}`);
  }
}
