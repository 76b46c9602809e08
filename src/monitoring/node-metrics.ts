/**
 * The node's Prometheus metrics (prom-client), on a registry this process owns and passes in
 * (never prom-client's global default registry): each node process exposes its own counters,
 * and Prometheus adds them up over its targets. Figures every process must agree on (documents
 * stored, backlog, destinations, view lag) are gauges set from CouchDB at each scrape by
 * src/services/monitoring/monitoring.service.ts. Label values are bounded sets: a route pattern
 * (never a raw path), a rejection reason class, a configured destination URL.
 */
import { Counter, Gauge, Histogram, collectDefaultMetrics, type Registry } from 'prom-client';
import { RecentRates } from './recent-rates.js';
import { rejectionReason } from './rejection-reason.js';

export interface DocumentOutcome { OK: boolean; error?: string }
export interface IncomingOutcome { stored: number; duplicates: number; stale: number; superseded: number; filtered: number; parked: number; rejected: { error: string }[] }
export interface DestinationRun { destination: string; outcome: string; docsWritten: number; seconds: number }

const PREFIX = 'lr_';

export class NodeMetrics {
  readonly recent = new RecentRates();
  private readonly requests: Counter<'service' | 'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'service' | 'route' | 'method' | 'status'>;
  private readonly published: Counter;
  private readonly rejected: Counter<'reason'>;
  private readonly paced: Counter<'outcome'>;
  private readonly pacedSeconds: Counter;
  private readonly incoming: Counter<'outcome'>;
  private readonly incomingRejected: Counter<'reason'>;
  private readonly runs: Counter<'destination' | 'outcome'>;
  private readonly sent: Counter<'destination'>;
  private readonly runDuration: Histogram<'destination'>;
  /** Range reads made while documents were being written, by how they were answered (src/storage/current-reads.ts). */
  readonly rangeReads: Counter<'answer' | 'because'>;
  /** Pages read ahead for harvesters following a list, by what became of them (src/storage/read-ahead.ts). */
  readonly readAheadPages: Counter<'outcome'>;
  /** Heavy requests answered 503 after waiting VIEW_WAIT_MS for a slot (src/http/request-slots.ts). */
  readonly heavyRequestsRefused: Counter;
  readonly gauges: {
    storeUp: Gauge; storeLatency: Gauge; documentsStored: Gauge; incomingBacklog: Gauge; incomingParked: Gauge;
    viewLag: Gauge<'database' | 'design_doc'>; lastRun: Gauge<'destination'>; lastOutcome: Gauge<'destination' | 'outcome'>;
  };

  constructor(readonly registry: Registry, store?: { readonly restartCount: number }) {
    const registers = [registry];
    // Node process metrics (CPU, memory, event loop lag, GC, handles) on this registry.
    collectDefaultMetrics({ register: registry });
    const routeLabels = ['service', 'route', 'method', 'status'] as const;
    this.requests = new Counter({ name: `${PREFIX}http_requests_total`, help: 'HTTP requests answered, by service, route pattern, method and status', labelNames: routeLabels, registers });
    this.latency = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`, help: 'Time to answer an HTTP request (until the handler returned; streamed bodies may take longer)',
      labelNames: routeLabels, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers,
    });
    this.published = new Counter({ name: `${PREFIX}documents_published_total`, help: 'Documents stored by publish (/publish, /swordpub) in this process', registers });
    this.rejected = new Counter({ name: `${PREFIX}documents_rejected_total`, help: 'Documents refused by publish in this process, by reason', labelNames: ['reason'], registers });
    this.paced = new Counter({
      name: `${PREFIX}publish_paced_total`, labelNames: ['outcome'], registers,
      help: 'Publish requests checked against PUBLISH_MAX_INDEX_LAG, by outcome: current (not held), caught_up (held until the indexes caught up), gave_up (held VIEW_WAIT_MS, then answered), unknown (the store did not say), released (answered because the node stopped)',
    });
    this.pacedSeconds = new Counter({ name: `${PREFIX}publish_paced_seconds_total`, help: 'Time publish requests were held for the view indexes (PUBLISH_MAX_INDEX_LAG)', registers });
    this.incoming = new Counter({ name: `${PREFIX}incoming_documents_total`, help: 'Documents that arrived by distribution and were processed by this process, by outcome (stored, duplicate, stale, superseded, filtered: left out by the active filters, answered as taken, parked: kept to be tried again, rejected)', labelNames: ['outcome'], registers });
    this.incomingRejected = new Counter({ name: `${PREFIX}incoming_rejected_total`, help: 'Arrived documents refused by inbound distribution, by reason', labelNames: ['reason'], registers });
    this.runs = new Counter({ name: `${PREFIX}distribution_runs_total`, help: 'Distribution runs to a destination by this process, by outcome (ok, skipped, unreachable, failed)', labelNames: ['destination', 'outcome'], registers });
    this.sent = new Counter({ name: `${PREFIX}distribution_documents_sent_total`, help: 'Documents written to a destination by replication', labelNames: ['destination'], registers });
    this.rangeReads = new Counter({
      name: `${PREFIX}range_reads_during_writes_total`, labelNames: ['answer', 'because'], registers,
      help: 'Range reads (obtain, slice, harvest, OAI-PMH pages) made while the database was being written to: answer="index" from the index as it stood with the changes not yet indexed placed in the page; answer="updated" after the store brought the index up to date, because of a long backlog, an uncertain order, a document changed again or a store error',
    });
    this.readAheadPages = new Counter({
      name: `${PREFIX}read_ahead_pages_total`, labelNames: ['outcome'], registers,
      help: 'Next pages of harvest, OAI-PMH and obtain lists read while the page before was sent (READ_AHEAD): started; taken by the harvester\'s next request; read_again (taken, but the changes since could not be placed in it); expired unasked; failed (the request read the page itself); full (not read: the pages held were at their bound)',
    });
    this.heavyRequestsRefused = new Counter({ name: `${PREFIX}heavy_requests_refused_total`, help: 'List pages and publish batches answered 503 after waiting VIEW_WAIT_MS for one of the HEAVY_REQUEST_LIMIT slots of this process', registers });
    this.runDuration = new Histogram({ name: `${PREFIX}distribution_duration_seconds`, help: 'Duration of a distribution run to one destination', labelNames: ['destination'], buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800], registers });
    this.gauges = {
      storeUp: new Gauge({ name: `${PREFIX}store_up`, help: '1 when CouchDB (or the embedded store) answered the last scrape, else 0', registers }),
      storeLatency: new Gauge({ name: `${PREFIX}store_response_seconds`, help: 'Time CouchDB took to answer GET / at the last scrape', registers }),
      documentsStored: new Gauge({ name: `${PREFIX}documents_stored`, help: 'Live resource_data documents in the store (the rows of the slice/by_date view)', registers }),
      incomingBacklog: new Gauge({ name: `${PREFIX}incoming_backlog_documents`, help: 'Documents in the incoming database waiting for inbound distribution', registers }),
      incomingParked: new Gauge({ name: `${PREFIX}incoming_parked_documents`, help: 'Arrived documents refused for a cause that may pass (a signer key location that did not answer), kept and tried again with backoff', registers }),
      viewLag: new Gauge({ name: `${PREFIX}view_build_lag_changes`, help: 'Database changes not yet indexed by a design document\'s views (update_seq difference)', labelNames: ['database', 'design_doc'], registers }),
      lastRun: new Gauge({ name: `${PREFIX}distribution_last_run_timestamp_seconds`, help: 'Time of the last distribution run to a destination by any process (node_status)', labelNames: ['destination'], registers }),
      lastOutcome: new Gauge({ name: `${PREFIX}distribution_last_outcome`, help: '1 for the outcome of the last distribution run to a destination (node_status), 0 for the others', labelNames: ['destination', 'outcome'], registers }),
    };
    if (store) {
      // Read at scrape time from the supervisor of this process's embedded store.
      new Counter({
        name: `${PREFIX}embedded_store_restarts_total`, help: 'Times the supervisor restarted the embedded store after it died', registers,
        collect() { this.reset(); this.inc(store.restartCount); },
      });
    }
  }

  request(labels: { service: string; route: string; method: string; status: number }, seconds: number): void {
    const values = { ...labels, status: String(labels.status) };
    this.requests.inc(values);
    this.latency.observe(values, seconds);
    this.recent.record(labels.status);
  }

  /** One publish batch's per-document results (spec "Publish" document_results). */
  publishResults(results: readonly DocumentOutcome[]): void {
    for (const result of results) {
      if (result.OK) this.published.inc();
      else this.rejected.inc({ reason: rejectionReason(result.error) });
    }
  }

  /** One publish request's admission by the index pacer (src/storage/index-pacer.ts). */
  publishPaced(outcome: string, seconds: number): void {
    this.paced.inc({ outcome });
    this.pacedSeconds.inc(seconds);
  }

  incomingResults(result: IncomingOutcome): void {
    if (result.stored) this.incoming.inc({ outcome: 'stored' }, result.stored);
    if (result.duplicates) this.incoming.inc({ outcome: 'duplicate' }, result.duplicates);
    if (result.stale) this.incoming.inc({ outcome: 'stale' }, result.stale);
    if (result.superseded) this.incoming.inc({ outcome: 'superseded' }, result.superseded);
    if (result.filtered) this.incoming.inc({ outcome: 'filtered' }, result.filtered);
    if (result.parked) this.incoming.inc({ outcome: 'parked' }, result.parked);
    if (result.rejected.length) this.incoming.inc({ outcome: 'rejected' }, result.rejected.length);
    for (const rejection of result.rejected) this.incomingRejected.inc({ reason: rejectionReason(rejection.error) });
  }

  distributionRun(run: DestinationRun): void {
    this.runs.inc({ destination: run.destination, outcome: run.outcome });
    if (run.docsWritten) this.sent.inc({ destination: run.destination }, run.docsWritten);
    this.runDuration.observe({ destination: run.destination }, run.seconds);
  }

  /** The gauge of this process's heavy requests, read from the slots at each scrape (src/http/request-slots.ts). */
  watchHeavyRequests(busy: () => { running: number; waiting: number }): void {
    new Gauge({
      name: `${PREFIX}heavy_requests`, labelNames: ['state'], registers: [this.registry],
      help: 'List pages and publish batches in this process: running (holding one of the HEAVY_REQUEST_LIMIT slots) and waiting for one',
      collect() {
        const { running, waiting } = busy();
        this.set({ state: 'running' }, running);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }
}
