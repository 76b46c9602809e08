/**
 * /metrics and /dashboard (issue 17): the figures of this process (request counters, its own
 * distribution runs and inbound processing, the embedded store's restarts) and the figures every
 * process reads from CouchDB (documents stored, incoming backlog, destinations from node_status,
 * view build lag, documents stored per day). A store that does not answer is a figure too
 * (store_up 0), never a failed scrape.
 */
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import type { DashboardData, StoreState } from '../../monitoring/dashboard-data.js';
import type { MonitoringRepository } from '../../storage/monitoring-repository.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import { whileNotAborted } from '../../storage/couch.js';

/**
 * How long a scrape waits for the live count (src/storage/resource-repository.ts liveSummary):
 * a view still being built answers nothing (the gauge is then absent), never a stale zero.
 */
const LIVE_COUNT_BUDGET = { staleMs: 500, catchUpMs: 1000, smallLag: 1000 };
import type { DailyCounts } from './daily-counts.js';

const OUTCOMES = ['ok', 'skipped', 'unreachable', 'failed'];
/** How long a scrape or the dashboard waits for the store before reporting it down (Prometheus' default scrape timeout is 10 s). */
const STORE_BUDGET_MS = 3000;
const DAYS = 30;

function down(error: unknown): StoreState {
  return {
    up: false, responseMs: null, error: error instanceof Error ? error.message : String(error),
    documentsStored: null, incomingBacklog: null, incomingParked: null, viewLag: [], destinations: [], lastInSync: null,
  };
}

export class MonitoringService {
  constructor(
    private readonly metrics: NodeMetrics,
    private readonly store: MonitoringRepository,
    private readonly nodes: NodeRepository,
    private readonly resources: ResourceRepository,
    private readonly daily: DailyCounts,
    private readonly embedded: { readonly restartCount: number } | undefined,
  ) {}

  /**
   * The store's figures, or `up: false` once STORE_BUDGET_MS have passed: a store that hangs
   * (stopped, swapping) rather than refusing would otherwise hold every scrape and dashboard as
   * long as it hangs, and the monitoring would go silent exactly when it is needed. The reads
   * left behind end when the store answers; their result is dropped.
   */
  async storeState(): Promise<StoreState> {
    return whileNotAborted(this.readStoreState(), AbortSignal.timeout(STORE_BUDGET_MS)).catch(() => down(new Error(`the store has not answered within ${STORE_BUDGET_MS / 1000} s`)));
  }

  private async readStoreState(): Promise<StoreState> {
    let responseMs: number;
    try {
      responseMs = await this.store.ping();
    } catch (error) {
      return down(error);
    }
    try {
      const [live, backlog, parked, viewLag, status] = await Promise.all([this.resources.liveSummary(LIVE_COUNT_BUDGET), this.store.incomingBacklog(), this.store.incomingParked(), this.store.viewLag(), this.nodes.nodeStatus()]);
      const outbound = (status?.outbound ?? {}) as Record<string, { last_sync?: string; outcome?: string; reason?: string; docs_written?: number }>;
      const destinations = Object.entries(outbound).map(([destination, entry]) => ({
        destination, lastRun: entry.last_sync ?? null, outcome: entry.outcome ?? 'unknown', reason: entry.reason ?? null, docsSent: entry.docs_written ?? null,
      }));
      return { up: true, responseMs, error: null, documentsStored: live?.count ?? null, incomingBacklog: backlog, incomingParked: parked, viewLag, destinations, lastInSync: typeof status?.last_in_sync === 'string' ? status.last_in_sync : null };
    } catch (error) {
      return { ...down(error), responseMs };
    }
  }

  /** The Prometheus text exposition of this process's registry, its gauges set from the store first. */
  async metricsText(): Promise<{ contentType: string; body: string }> {
    const state = await this.storeState();
    const { gauges } = this.metrics;
    gauges.storeUp.set(state.up ? 1 : 0);
    if (state.responseMs !== null) gauges.storeLatency.set(state.responseMs / 1000);
    if (state.up) {
      gauges.documentsStored.set(state.documentsStored ?? Number.NaN);
      gauges.incomingBacklog.set(state.incomingBacklog ?? 0);
      gauges.incomingParked.set(state.incomingParked ?? 0);
      gauges.viewLag.reset();
      for (const lag of state.viewLag) gauges.viewLag.set({ database: lag.database, design_doc: lag.designDoc }, lag.behind);
      gauges.lastRun.reset();
      gauges.lastOutcome.reset();
      for (const entry of state.destinations) {
        if (entry.lastRun) gauges.lastRun.set({ destination: entry.destination }, Date.parse(entry.lastRun) / 1000);
        for (const outcome of OUTCOMES) gauges.lastOutcome.set({ destination: entry.destination, outcome }, entry.outcome === outcome ? 1 : 0);
      }
    } else {
      // Unknown while the store is down: NaN for the unlabelled gauges (prom-client always
      // exposes those), no series for the labelled ones; never a stale or a made-up 0.
      gauges.documentsStored.set(Number.NaN);
      gauges.incomingBacklog.set(Number.NaN);
      gauges.incomingParked.set(Number.NaN);
      for (const gauge of [gauges.viewLag, gauges.lastRun, gauges.lastOutcome]) gauge.reset();
    }
    return { contentType: this.metrics.registry.contentType, body: await this.metrics.registry.metrics() };
  }

  async dashboard(nodeName: string): Promise<DashboardData> {
    const state = await this.storeState();
    const perDay = state.up ? await whileNotAborted(this.daily.lastDays(DAYS), AbortSignal.timeout(STORE_BUDGET_MS)).catch(() => undefined) : undefined;
    return {
      ...state,
      nodeName,
      pid: process.pid,
      generated: new Date().toISOString(),
      embedded: this.embedded ? { restarts: this.embedded.restartCount } : null,
      perDay: perDay?.days ?? [],
      perDayBehind: perDay?.behind ?? false,
      lastHour: this.metrics.recent.lastHour(),
    };
  }
}
