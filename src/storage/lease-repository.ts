/**
 * Leases in the node database: a run that must not overlap across node processes (distribution)
 * holds a lease document with an expiry, renewed while it runs. CouchDB's revision check makes
 * acquisition atomic: of two processes writing the same revision, one gets a conflict (on a
 * cluster, once the write is settled: settled-writes.ts; unsettled, 4 of 25 concurrent runs on
 * the three-member fixture overlapped). A process that dies leaves a lease that simply expires,
 * unless the store is one only a single node process can use (releaseDead).
 * The lease documents are read for /status through the node database's followed documents
 * (followed-documents.ts), so that answer costs no store request; each write of this process
 * drops the copy, so its next read sees the write.
 */
import type { Couch } from './couch.js';
import { isConflict, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, database, type Database } from './documents.js';
import { writeOne } from './settled-writes.js';
import type { FollowedDocuments } from './followed-documents.js';

/** The lease a distribution run holds (`lease:distribution`), whichever node process runs it. */
export const DISTRIBUTION_LEASE = 'distribution';

/** The lease of the process that follows the incoming database (`lease:incoming`; incoming-follower.ts). */
export const INCOMING_LEASE = 'incoming';

// A type, not an interface, so that it is a StoredDoc as it stands.
type LeaseDoc = { _id: string; _rev?: string; doc_type: 'lease'; holder: string; since: string; expires: string };

/**
 * `abandoned`: the lease was taken over from another holder whose lease had expired (it died, or
 * lost the store for a whole lease period), with when that holder's work started.
 */
export type LeaseAnswer = { acquired: true; abandoned?: { since: string } } | { acquired: false; since: string };

/** A lease as /status reports it (LeaseRepository.state). */
export interface LeaseState { held?: { since: string; expires: string }; leftBehind?: { since: string } }

export class LeaseRepository {
  private readonly db: Database;

  constructor(couch: Couch, names: DatabaseNames, private readonly followed?: FollowedDocuments, private readonly now: () => Date = () => new Date()) {
    this.db = database(couch, names.node);
  }

  /**
   * The lease `name` while some process holds it: from memory while the node database's feed
   * follows. An expired lease is held by nobody (its holder died or lost it: acquire takes it over).
   */
  async current(name: string): Promise<{ since: string; expires: string } | undefined> {
    return (await this.state(name)).held;
  }

  /**
   * The lease `name` as /status reports it: `held` while some process holds it; `leftBehind` once
   * it has expired without being released (its holder died, or lost the store for a whole lease
   * period), until a process takes it over or releases it. Both from memory, as `current`.
   */
  async state(name: string): Promise<LeaseState> {
    const id = `lease:${name}`;
    const doc = (this.followed ? await this.followed.get(id) : await getOrUndefined(this.db, id)) as Partial<LeaseDoc> | undefined;
    if (typeof doc?.since !== 'string' || typeof doc.expires !== 'string') return {};
    return Date.parse(doc.expires) > this.now().getTime() ? { held: { since: doc.since, expires: doc.expires } } : { leftBehind: { since: doc.since } };
  }

  /** `since`: when the work the lease is for started (default: now), which other processes are told. */
  async acquire(name: string, holder: string, ttlMs: number, since?: string): Promise<LeaseAnswer> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc>(this.db, id);
    const now = this.now();
    if (current && current.holder !== holder && Date.parse(current.expires) > now.getTime()) return { acquired: false, since: current.since };
    const lease: LeaseDoc = { _id: id, doc_type: 'lease', holder, since: since ?? now.toISOString(), expires: new Date(now.getTime() + ttlMs).toISOString(), ...(current?._rev ? { _rev: current._rev } : {}) };
    try {
      if ((await writeOne(this.db, lease, `acquire lease ${name}`)).ok) {
        return current && current.holder !== holder ? { acquired: true, abandoned: { since: current.since } } : { acquired: true };
      }
    } finally {
      this.followed?.changed(id);
    }
    const winner = await getOrUndefined<LeaseDoc>(this.db, id);
    return { acquired: false, since: winner?.since ?? now.toISOString() };
  }

  /** Extends a lease this holder owns; false when it was lost (expired and taken by another). */
  async renew(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc>(this.db, id);
    if (!current || current.holder !== holder) return false;
    try {
      return (await writeOne(this.db, { ...current, expires: new Date(this.now().getTime() + ttlMs).toISOString() }, `renew lease ${name}`)).ok;
    } finally {
      this.followed?.changed(id);
    }
  }

  /**
   * Removes the lease whoever holds it, and says when its work started: for a store that one node
   * process alone can use (the embedded store: one node per DATA_DIR, data-dir-in-use.ts), where a
   * lease found at start is a dead process's. Never where other processes share the store: there
   * a lease may be a live one's, and only its expiry ends it.
   */
  async releaseDead(name: string): Promise<{ since: string } | undefined> {
    const current = await getOrUndefined<LeaseDoc>(this.db, `lease:${name}`);
    if (!current?._rev) return undefined;
    return (await this.remove(name, current._rev)) ? { since: current.since } : undefined;
  }

  async release(name: string, holder: string): Promise<void> {
    const current = await getOrUndefined<LeaseDoc>(this.db, `lease:${name}`);
    if (!current?._rev || current.holder !== holder) return;
    await this.remove(name, current._rev);
  }

  /** Deletes this revision of the lease; false when it changed meanwhile (another process wrote it). */
  private async remove(name: string, rev: string): Promise<boolean> {
    const id = `lease:${name}`;
    try {
      await this.db.destroy(id, rev);
      return true;
    } catch (error) {
      if (!isConflict(error)) throw mapCouchError(error, `release lease ${name}`);
      return false;
    } finally {
      this.followed?.changed(id);
    }
  }
}
