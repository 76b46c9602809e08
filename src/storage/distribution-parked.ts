/**
 * The parked documents: arrived documents whose refusal may pass (a signer's key location did
 * not answer, the store refused the write), kept in their own database to be tried again
 * (src/services/distribute/parked-retrier.ts). Neither replicator sends a document again once
 * its batch is answered, so without this a key server down for a minute lost the document at
 * this node for good. One document per arrived id, holding the document as it arrived; the
 * database is the node's alone (never replicated, no service reads it).
 */
import { inStore, type Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { type StoredDoc, database, type Database } from './documents.js';
import { bulkWrite } from './settled-writes.js';

/** What is kept of one parked document. Timestamps are ISO 8601 UTC (fixed width: string order is time order). */
export interface ParkedDocument {
  /** The id the document arrived under (the replicator's `_id`). */
  id: string;
  /** The document as it arrived, in its public form (no store members, no node-private fields), and its `_id`. */
  doc: StoredDoc;
  /** Why it was not stored the last time it was tried. */
  reason: string;
  /** When it was first parked: the lifetime of its retries counts from here. */
  first_parked: string;
  /** Tries so far, the first on arrival included. */
  attempts: number;
  next_attempt: string;
}

// A type, not an interface: it is then a StoredDoc as it stands (an interface has no index signature).
type ParkedRow = { _id: string; _rev?: string; doc: StoredDoc; reason: string; first_parked: string; attempts: number; next_attempt: string };

const toRow = (parked: ParkedDocument, rev?: string): ParkedRow => ({
  _id: parked.id, ...(rev ? { _rev: rev } : {}), doc: parked.doc, reason: parked.reason,
  first_parked: parked.first_parked, attempts: parked.attempts, next_attempt: parked.next_attempt,
});

const fromRow = (row: ParkedRow): ParkedDocument & { rev: string } => ({
  id: row._id, rev: row._rev as string, doc: row.doc, reason: row.reason,
  first_parked: row.first_parked, attempts: row.attempts, next_attempt: row.next_attempt,
});

export type HeldParkedDocument = ParkedDocument & { rev: string };

export class ParkedRepository {
  private readonly db: Database;

  constructor(private readonly couch: Couch, private readonly names: DatabaseNames) {
    this.db = database(couch, names.incomingParked);
  }

  /** What is parked under these ids now (a removed one is absent). */
  async held(ids: string[]): Promise<Map<string, HeldParkedDocument>> {
    if (ids.length === 0) return new Map();
    const answer = await inStore('read parked documents', () => this.db.fetch({ keys: ids }));
    return new Map(answer.rows.flatMap((row) => ('doc' in row && row.doc ? [[row.id, fromRow(row.doc as ParkedRow)] as const] : [])));
  }

  /**
   * Parks documents, each over the parked revision `rev` names (none: a new parking). Returns the
   * ids parked; one not parked (another node process parked it meanwhile: a conflict) is not
   * among them.
   */
  async park(documents: (ParkedDocument & { rev?: string })[]): Promise<Set<string>> {
    const results = await bulkWrite(this.db, documents.map((parked) => toRow(parked, parked.rev)));
    return new Set(results.filter((result) => result.ok).map((result) => result.id));
  }

  /** Up to `limit` parked documents due at `now`, the longest due first. */
  async due(now: string, limit: number): Promise<HeldParkedDocument[]> {
    const answer = await inStore('read due parked documents', () => this.db.view('distribute', 'by_next_attempt', { endkey: now, limit, include_docs: true }));
    return answer.rows.flatMap((row) => (row.doc ? [fromRow(row.doc as ParkedRow)] : []));
  }

  /**
   * Writes the new state of parked documents over the revisions they were read at, and returns
   * those written with their new revisions. One not written met a conflict: another node process
   * claimed or settled it, or it was parked again meanwhile, and that state stands.
   */
  async reschedule(documents: HeldParkedDocument[]): Promise<HeldParkedDocument[]> {
    const results = await bulkWrite(this.db, documents.map((parked) => toRow(parked, parked.rev)));
    const revs = new Map(results.flatMap((result) => (result.ok ? [[result.id, result.rev] as const] : [])));
    return documents.flatMap((parked) => { const rev = revs.get(parked.id); return rev === undefined ? [] : [{ ...parked, rev }]; });
  }

  /** Removes documents done with (stored, refused for good, or given up); a conflict leaves a newer parking in place. */
  async remove(documents: HeldParkedDocument[]): Promise<void> {
    await bulkWrite(this.db, documents.map((parked) => ({ _id: parked.id, _rev: parked.rev, _deleted: true })));
  }

  count(): Promise<number> {
    return parkedCount(this.couch, this.names);
  }
}

/** How many documents are parked: the database's own count, less its design documents (two cheap reads, no view). */
export async function parkedCount(couch: Couch, names: DatabaseNames): Promise<number> {
  const [info, design] = await Promise.all([
    inStore('read the parked documents database', () => couch.db.get(names.incomingParked)),
    inStore('list design documents of the parked documents database', () => database(couch, names.incomingParked).list({ startkey: '_design/', endkey: '_design0' })),
  ]);
  return Math.max(0, info.doc_count - design.rows.length);
}
