/**
 * `POST /distribute`, the source node process (spec "Distribution", source steps 1-5). The
 * distribution primitive is a one-shot filtered CouchDB replication from resource_data to each
 * destination's inbound endpoint. Bad connections and failed replications return no error to the
 * caller (spec); they are logged and recorded per destination in node_status.outbound (/status).
 * Node, community and connectivity documents are read at each run, so connections added while
 * the node runs take effect. Runs never overlap: a call during a run reports that run.
 * The steps live beside it: 1-3 source-checks.ts, 4 destination-checks.ts, 5 replication-step.ts;
 * the lease and the run's record run-lease.ts.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../domain/timestamps.js';
import type { LeaseRepository } from '../../storage/lease-repository.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { DistributionRepository } from '../../storage/distribution-outbound.js';
import { scrubCredentials } from '../../net/url-credentials.js';
import type { LocalNodeInfo } from './destination-info.js';
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import type { ServiceSettings } from '../service-settings.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import type { DistributeAnswer, OutboundEntry } from './outbound-entry.js';
import { RunLease } from './run-lease.js';
import { sourceReady } from './source-checks.js';
import { toDestination } from './destination-checks.js';
import type { DestinationAccess } from './replication-step.js';

export type { DistributeAnswer, OutboundEntry, Outcome } from './outbound-entry.js';

export class DistributeService {
  private running: { since: string; done: Promise<DistributeAnswer> } | undefined;
  private readonly lease: RunLease;
  private readonly access: DestinationAccess;

  constructor(
    private readonly nodes: NodeRepository,
    private readonly repo: DistributionRepository,
    private readonly logger: Logger,
    leases: LeaseRepository,
    private readonly metrics: NodeMetrics,
    private readonly settings: ServiceSettings,
    /** Asks the destinations (peer-fetch.ts: createPeerFetcher). */
    peers: SafeFetcher,
    private readonly clock: Clock = () => new Date(),
  ) {
    this.lease = new RunLease(leases, repo, logger, clock);
    this.access = { peers, repo };
  }

  /**
   * Starts a run, or reports the one in progress (its start time) without starting another. Runs
   * do not overlap across node processes either: a run holds the `distribution` lease in CouchDB.
   */
  async distribute(): Promise<DistributeAnswer> {
    // A description that says the service is not active: 503, for POST /distribute and a scheduled run alike.
    await this.settings.of('distribute');
    if (this.running) return { OK: true, error: '', running_since: this.running.since };
    const since = this.clock().toISOString();
    const done = this.lease.hold(since, () => this.run(since)).finally(() => { this.running = undefined; });
    this.running = { since, done };
    return done;
  }

  /** At start on the embedded store: a lease a killed process left behind (run-lease.ts). Never throws. */
  async releaseDeadRun(): Promise<void> {
    await this.lease.releaseDeadRun();
  }

  /** Resolves when the current run (if any) has finished; for a graceful stop. */
  async idle(): Promise<void> {
    await this.running?.done.catch(() => undefined);
  }

  private async run(at: string): Promise<DistributeAnswer> {
    const ready = await sourceReady(this.nodes, this.repo, this.logger);
    if (!ready.ok) return { OK: false, error: ready.error };
    const { local, active } = ready;
    const entries = await Promise.all(active.map((connection) => this.timedToDestination(local, connection, at)));
    const outbound: Record<string, Omit<OutboundEntry, 'detail'>> = {};
    for (const [index, { detail, ...entry }] of entries.entries()) {
      const url = scrubCredentials(String(active[index]?.destination_node_url));
      outbound[url] = { ...entry };
      const log = { destination: url, ...entry, ...(detail ? { detail } : {}) };
      if (entry.outcome === 'ok' || entry.outcome === 'skipped') this.logger.info(log, 'distribution');
      else this.logger.warn(log, 'distribution to a destination failed');
    }
    await this.repo.recordOutbound(at, outbound);
    return { OK: true, error: '', outbound };
  }

  /** One destination's run, counted in this process's metrics (duration, outcome, documents sent). */
  private async timedToDestination(local: LocalNodeInfo, connection: StoredDoc, at: string): Promise<OutboundEntry> {
    const started = performance.now();
    const entry = await toDestination(this.access, local, connection, at);
    const destination = scrubCredentials(String(connection.destination_node_url));
    this.metrics.distributionRun({ destination, outcome: entry.outcome, docsWritten: entry.docs_written ?? 0, seconds: (performance.now() - started) / 1000 });
    return entry;
  }
}
