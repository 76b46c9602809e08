/**
 * Several revisions of one document in a replicated batch: a replicator sends every open
 * revision of a document that is in conflict at its source (CouchDB "Replication Protocol",
 * _bulk_docs with new_edits=false). The node stores one document per doc_ID, so it takes the
 * revision CouchDB itself shows: its deterministic winner, the one with the longest revision
 * history, then the greatest revision id ("Replication and conflict model": every node picks the
 * same winner without talking to the others). Deleted revisions never reach here.
 */
interface Revisioned { _id?: unknown; _rev?: unknown }

function revisionOrder(rev: unknown): [number, string] {
  const text = typeof rev === 'string' ? rev : '';
  const dash = text.indexOf('-');
  return [dash > 0 ? Number(text.slice(0, dash)) || 0 : 0, dash > 0 ? text.slice(dash + 1) : text];
}

/** Whether revision `a` wins over `b`. */
function wins(a: unknown, b: unknown): boolean {
  const [depthA, hashA] = revisionOrder(a);
  const [depthB, hashB] = revisionOrder(b);
  return depthA !== depthB ? depthA > depthB : hashA > hashB;
}

/** One revision per document id, the winning one, in the order the ids first appear. */
export function winningRevisions<T extends Revisioned>(docs: T[]): T[] {
  const chosen = new Map<unknown, T>();
  for (const doc of docs) {
    const held = chosen.get(doc._id);
    if (held === undefined || wins(doc._rev, held._rev)) chosen.set(doc._id, doc);
  }
  return docs.filter((doc) => chosen.get(doc._id) === doc);
}
