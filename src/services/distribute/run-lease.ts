/**
 * A distribution run's bookkeeping: the `distribution` lease it holds in the node database, so that
 * runs never overlap across node processes, and its outcome in node_status.last_out_run (/status),
 * a run whose process stopped before it ended included. What a run does is distribute.service.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/timestamps.js';
import { DISTRIBUTION_LEASE as LEASE, type LeaseRepository } from '../../storage/lease-repository.js';
import type { DistributionRepository } from '../../storage/distribution-outbound.js';
import { AppError } from '../../errors/app-error.js';
import { describe, type DistributeAnswer } from './outbound-entry.js';
import { ABANDONED_RUN, abandonedRunRecord } from '../../domain/abandoned-run.js';
import { renewWhileHeld } from './lease-renewal.js';

/**
 * Renewed every third of this while a run lasts; a crashed holder blocks others this long at most,
 * on CouchDB only (on the embedded store a start releases it: releaseDeadRun). Not shorter: a
 * renewal is a read and a write of the node database, settled on a cluster (settled-writes.ts), and
 * two in a row may fail (a CouchDB restart, a slow cluster member) before another process can start
 * a run beside a live one; and a dead process's replication goes on inside CouchDB for a while.
 */
const LEASE_TTL_MS = 90_000;

export class RunLease {
  /** Identifies this process as a lease holder. */
  private readonly holder = randomUUID();

  constructor(
    private readonly leases: LeaseRepository,
    private readonly repo: DistributionRepository,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `run` while holding the lease, and records its outcome; when another process holds the
   * lease, answers with that run's start instead. `since` is the run's own start, so that /status,
   * running_since and last_out_run.started agree.
   */
  async hold(since: string, run: () => Promise<DistributeAnswer>): Promise<DistributeAnswer> {
    const lease = await this.leases.acquire(LEASE, this.holder, LEASE_TTL_MS, since);
    if (!lease.acquired) return { OK: true, error: '', running_since: lease.since };
    if (lease.abandoned) await this.recordAbandoned(lease.abandoned.since);
    const stopRenewing = renewWhileHeld({ leases: this.leases, name: LEASE, holder: this.holder, ttlMs: LEASE_TTL_MS }, this.logger, () => {
      // Renewals failed for a whole lease period and another process took the lease over: its
      // run may overlap this one (replication is idempotent: work done twice, nothing lost).
      this.logger.warn({ since }, 'distribution lease lost while running: another node process may be running distribution at the same time');
    });
    try {
      const answer = await run().catch(async (error: unknown) => {
        await this.recordRun(since, { OK: false, error: error instanceof AppError && error.expose ? error.message : 'internal error' });
        throw error;
      });
      await this.recordRun(since, answer);
      return answer;
    } finally {
      stopRenewing();
      // Left behind, the lease blocks other processes' runs until it expires (90 s), and /status
      // reads it: worth a line in the log.
      await this.leases.release(LEASE, this.holder).catch((error: unknown) => this.logger.warn({ err: describe(error) }, 'could not release the distribution lease: it expires by itself'));
    }
  }

  /**
   * Every run's outcome in node_status.last_out_run (read by /status), aborted ones included (no
   * resource data, two active gateway connections, a store failure; a killed one: recordAbandoned):
   * a scheduled run that fails is seen there, not only in the log. A failure to record is logged,
   * never the run's outcome.
   */
  private async recordRun(started: string, answer: { OK: boolean; error: string }): Promise<void> {
    await this.record({ started, finished: this.clock().toISOString(), OK: answer.OK, ...(answer.OK ? {} : { error: answer.error }) });
  }

  /**
   * A run whose process stopped before it ended (killed, crashed) never recorded itself: it is
   * recorded, aborted, by whoever finds its lease left behind (a run taking over the expired
   * lease, or a start on the embedded store), before that one's own run. `finished` is null: when
   * it stopped is not known, only that its lease was not renewed after.
   */
  private async recordAbandoned(started: string): Promise<void> {
    this.logger.warn({ since: started }, `distribution run recorded as aborted: ${ABANDONED_RUN}`);
    await this.repo.recordAbandonedRun(abandonedRunRecord(started)).catch((error: unknown) => this.logger.warn({ err: describe(error) }, 'could not record the distribution run'));
  }

  private async record(run: Parameters<DistributionRepository['recordRun']>[0]): Promise<void> {
    await this.repo.recordRun(run).catch((error: unknown) => this.logger.warn({ err: describe(error) }, 'could not record the distribution run'));
  }

  /**
   * At start on the embedded store, which this node process alone uses (one node per DATA_DIR):
   * a distribution lease found then is a dead process's (killed during its run), which would be
   * reported as a run in progress, and keep runs from starting, until it expired. It is released
   * and that run recorded as aborted. Never throws: a lease left behind still expires.
   */
  async releaseDeadRun(): Promise<void> {
    try {
      const dead = await this.leases.releaseDead(LEASE);
      if (dead) await this.recordAbandoned(dead.since);
    } catch (error) {
      this.logger.warn({ err: describe(error) }, 'could not release the distribution lease of a stopped node process: it expires by itself');
    }
  }
}
