/**
 * Leases in the node database: a run that must not overlap across node processes (distribution)
 * holds a lease document with an expiry, renewed while it runs. CouchDB's revision check makes
 * acquisition atomic: of two processes writing the same revision, one gets a conflict (on a
 * cluster, once the write is settled: settled-writes.ts; unsettled, 4 of 25 concurrent runs on
 * the three-member fixture overlapped). A process that dies leaves a lease that simply expires.
 */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import { isConflict, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, type StoredDoc } from './documents.js';
import { writeOne } from './settled-writes.js';

interface LeaseDoc { _id: string; _rev?: string; doc_type: 'lease'; holder: string; since: string; expires: string }

export type LeaseAnswer = { acquired: true } | { acquired: false; since: string };

export class LeaseRepository {
  private readonly db: DocumentScope<unknown>;

  constructor(couch: Couch, names: DatabaseNames, private readonly now: () => Date = () => new Date()) {
    this.db = couch.use(names.node);
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<LeaseAnswer> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
    const now = this.now();
    if (current && current.holder !== holder && Date.parse(current.expires) > now.getTime()) return { acquired: false, since: current.since };
    const lease: LeaseDoc = { _id: id, doc_type: 'lease', holder, since: now.toISOString(), expires: new Date(now.getTime() + ttlMs).toISOString(), ...(current?._rev ? { _rev: current._rev } : {}) };
    if ((await writeOne(this.db, lease as unknown as StoredDoc, `acquire lease ${name}`)).ok) return { acquired: true };
    const winner = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
    return { acquired: false, since: winner?.since ?? now.toISOString() };
  }

  /** Extends a lease this holder owns; false when it was lost (expired and taken by another). */
  async renew(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
    if (!current || current.holder !== holder) return false;
    return (await writeOne(this.db, { ...current, expires: new Date(this.now().getTime() + ttlMs).toISOString() }, `renew lease ${name}`)).ok;
  }

  async release(name: string, holder: string): Promise<void> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
    if (!current?._rev || current.holder !== holder) return;
    try {
      await this.db.destroy(id, current._rev);
    } catch (error) {
      if (!isConflict(error)) throw mapCouchError(error, `release lease ${name}`);
    }
  }
}
