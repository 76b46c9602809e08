/**
 * Triggers distribution every `sync_frequency` minutes of the node description (spec
 * "Distribution": "A task scheduler SHOULD trigger it per the node's sync_frequency"). The value
 * is read at every tick, so changing the node description takes effect without a restart;
 * absent (the default), nothing is scheduled. Overlap is prevented by DistributeService itself
 * (a lease in the store); the period is counted from the last run of any node process.
 */
import type { Logger } from 'pino';
import type { NodeRepository } from '../../storage/node-repository.js';

export class DistributionScheduler {
  private timer: NodeJS.Timeout | undefined;
  private lastRun = Date.now();
  private stopped = false;
  private ticking: Promise<void> | undefined;

  /** `minuteMs` is one minute of sync_frequency (shorter in tests). */
  constructor(
    private readonly nodes: NodeRepository,
    private readonly distribute: () => Promise<{ OK: boolean; error: string; running_since?: string }>,
    private readonly logger: Logger,
    private readonly minuteMs = 60_000,
  ) {}

  start(): void {
    this.stopped = false;
    this.lastRun = Date.now();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => { this.ticking = undefined; this.schedule(); });
    }, Math.max(10, Math.round(this.minuteMs / 6)));
  }

  private async tick(): Promise<void> {
    try {
      const node = await this.nodes.nodeDescription();
      const minutes = typeof node?.sync_frequency === 'number' && node.sync_frequency > 0 ? node.sync_frequency : undefined;
      if (minutes === undefined || this.stopped) return;
      // The last run of any process serving this node (node_status.last_out_run, shared in the
      // store): several processes run one schedule between them, not one each.
      const started = (await this.nodes.nodeStatus())?.last_out_run as { started?: unknown } | undefined;
      const shared = typeof started?.started === 'string' ? Date.parse(started.started) : Number.NaN;
      const last = Number.isFinite(shared) ? Math.max(this.lastRun, shared) : this.lastRun;
      if (Date.now() - last < minutes * this.minuteMs) return;
      this.lastRun = Date.now();
      const answer = await this.distribute();
      // A run already in progress (this process's, or another's holding the lease) ran nothing:
      // logged as a run, the log showed two runs a minute where there was one (an audit).
      if (answer.running_since !== undefined) this.logger.info({ running_since: answer.running_since }, 'scheduled distribution skipped: a run is in progress');
      else this.logger.info({ ok: answer.OK, error: answer.error || undefined }, 'scheduled distribution');
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'scheduled distribution failed');
    }
  }
}
