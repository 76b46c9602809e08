/**
 * Leases in the node database: a run that must not overlap across node processes (distribution)
 * holds a lease document with an expiry, renewed while it runs. CouchDB's revision check makes
 * acquisition atomic: of two processes writing the same revision, one gets a conflict. A process
 * that dies leaves a lease that simply expires.
 */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import { isConflict, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined } from './documents.js';

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
    try {
      await this.db.insert(lease as never);
      return { acquired: true };
    } catch (error) {
      if (!isConflict(error)) throw mapCouchError(error, `acquire lease ${name}`);
      const winner = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
      return { acquired: false, since: winner?.since ?? now.toISOString() };
    }
  }

  /** Extends a lease this holder owns; false when it was lost (expired and taken by another). */
  async renew(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const id = `lease:${name}`;
    const current = await getOrUndefined<LeaseDoc & Record<string, unknown>>(this.db, id);
    if (!current || current.holder !== holder) return false;
    try {
      await this.db.insert({ ...current, expires: new Date(this.now().getTime() + ttlMs).toISOString() } as never);
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw mapCouchError(error, `renew lease ${name}`);
    }
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
