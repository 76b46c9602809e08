/**
 * The lease that makes one node process at a time follow a feed every process could follow (the
 * incoming database: incoming-follower.ts). Several processes serving one CouchDB
 * (docs/scaling.md) each ran the follower over every arrival: each verified every signature
 * and fetched every key location, and all but one counted the document a duplicate (the races
 * audit: 30 arrivals counted 60 times with two processes). The follower's work is idempotent,
 * so the lease is about work done once, not about correctness: a holder that loses it (its
 * renewals failed for a whole period) may overlap the next for a moment, and loses nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { LeaseRepository } from '../../storage/lease-repository.js';
import { renewWhileHeld } from './lease-renewal.js';

/**
 * How long a lease outlives its last renewal: a dead holder's arrivals wait this long before
 * another process takes the feed over (a stopping holder releases it at once). Renewed every third.
 */
export const FOLLOWER_LEASE_TTL_MS = 30_000;

export class FollowerLease {
  /** Identifies this process as the holder. */
  private readonly holder = randomUUID();
  /** Stops the background renewal; set while this process holds the lease. */
  private stopRenewing: (() => void) | undefined;

  constructor(private readonly leases: LeaseRepository, private readonly name: string, private readonly logger: Logger, readonly ttlMs = FOLLOWER_LEASE_TTL_MS) {}

  /** Whether this process holds the lease, taking it when it is free or expired; renewed in the background while held. */
  async hold(): Promise<boolean> {
    if (this.stopRenewing) return true;
    const answer = await this.leases.acquire(this.name, this.holder, this.ttlMs);
    if (!answer.acquired) return false;
    if (answer.abandoned) this.logger.info({ lease: this.name, since: answer.abandoned.since }, 'took over a lease whose holder stopped renewing it');
    this.stopRenewing = renewWhileHeld({ leases: this.leases, name: this.name, holder: this.holder, ttlMs: this.ttlMs }, this.logger, () => {
      // Another process took it over after our renewals failed: it follows now, this one stops.
      this.logger.warn({ lease: this.name }, 'lease lost to another node process: it follows the feed from here');
      this.stopRenewing = undefined;
    });
    return true;
  }

  /** Gives the lease up (the process stops), so another process takes the feed over at once rather than after its expiry. */
  async release(): Promise<void> {
    if (!this.stopRenewing) return;
    this.stopRenewing();
    this.stopRenewing = undefined;
    await this.leases.release(this.name, this.holder).catch((error: unknown) => this.logger.warn({ lease: this.name, err: (error as Error).message }, 'could not release the lease: it expires by itself'));
  }
}
