/**
 * `POST /distribute`, the source node process (spec "Distribution", source steps 1-5). The
 * distribution primitive is a one-shot filtered CouchDB replication from resource_data to each
 * destination's inbound endpoint. Bad connections and failed replications return no error to the
 * caller (spec); they are logged and recorded per destination in node_status.outbound (/status).
 * Node, community and connectivity documents are read at each run, so connections added while
 * the node runs take effect. Runs never overlap: a call during a run reports that run.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/timestamps.js';
import { DISTRIBUTION_LEASE as LEASE, type LeaseRepository } from '../../storage/lease-repository.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { replicationEndpoint, scrubCredentials, type DistributionRepository } from '../../storage/distribution-outbound.js';
import { basicAuthorization } from '../../net/basic-authorization.js';
import { INBOUND_PATH, activeFilter, inboundProbeProblem, parseDestinationAnswer, skipReason, type LocalNodeInfo, type TargetNodeInfo } from './destination-info.js';
import { AppError, notBootstrapped } from '../../errors/app-error.js';
import { LIVE_FOR_DISTRIBUTION_SELECTOR, filterDescriptionProblem } from '../../domain/filters.js';
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import type { ServiceSettings } from '../service-settings.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import { answeredWith, fetchPeerJson, type PeerFailure } from './peer-fetch.js';

/** The design-doc filter (design-docs/resource_data/distribute/filters/live_for_destination.js). */
const REPLICATION_FILTER = 'distribute/live_for_destination';
/**
 * Renewed every third of this while a run lasts; a crashed holder blocks others this long at most,
 * on CouchDB only (on the embedded store a start releases it: releaseDeadRun). Not shorter: a
 * renewal is a read and a write of the node database, settled on a cluster (settled-writes.ts), and
 * two in a row may fail (a CouchDB restart, a slow cluster member) before another process can start
 * a run beside a live one; and a dead process's replication goes on inside CouchDB for a while.
 */
const LEASE_TTL_MS = 90_000;
/** last_out_run's error for a run whose process stopped before it ended (README "Source"). */
const ABANDONED_RUN = 'the process running it stopped before it ended';

/**
 * The spec's `{OK, error}`. A destination's failure is no error to the caller (spec "Distribution"),
 * so `OK` stays true; `outbound` (an extension, the entries /status records for this run) says
 * what became of each destination, so the caller sees a failure in the answer it waited for.
 */
export interface DistributeAnswer { OK: boolean; error: string; running_since?: string; outbound?: Record<string, Omit<OutboundEntry, 'detail'>> }

/** `unreachable`: nothing answered (no connection, no answer in time, no such name); `failed`: it answered, but not as a node to replicate to, or the replication failed. */
export type Outcome = 'ok' | 'skipped' | 'unreachable' | 'failed';
/**
 * One destination's last run, as /status serves it (public): `reason` says what failed in the
 * user's terms; `detail` (the fetcher's or the store's own words) goes to the log only and is
 * never recorded (issue 14, defect 7). `docs_refused`: documents the destination refused by its
 * rules (the reasons are in its log); they are not sent again. The counts are missing when the
 * replication failed (unknown).
 */
export interface OutboundEntry { connection_id: unknown; last_sync: string; outcome: Outcome; reason?: string; detail?: string; docs_written?: number; docs_refused?: number; docs_read?: number }

/** The error's own text, credentials scrubbed: for the log only (it names resolver internals). */
const describe = (error: unknown): string => scrubCredentials(error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error));

/** Why a destination refused this node at its inbound endpoint, and what the operator does about it. */
function credentialRefusal(url: string, status: number, sent: boolean): string {
  const destination = scrubCredentials(url);
  if (status === 403) return `the destination refused this node's account (HTTP 403): the account set for it must be a network_admin of ${destination}`;
  return sent
    ? `the destination refused this node's credentials (HTTP 401): set the right ones with lr-node destination set ${destination} --user NAME`
    : `this node holds no credentials for the destination (HTTP 401): set them with lr-node destination set ${destination} --user NAME`;
}

type EntryBase = Pick<OutboundEntry, 'connection_id' | 'last_sync'>;

/**
 * A GET of `url` that gave no answer this node reads: what failed in the user's terms (`reason`),
 * and in the fetcher's own words for the log (`detail`). A peer that answered (a redirect, an
 * answer too large) was reached: that is a failure naming its status, not `unreachable`.
 */
function unanswered(base: EntryBase, url: string, what: string, failure: PeerFailure, logged: string): OutboundEntry {
  const detail = `${logged}: ${scrubCredentials(failure.detail)}`;
  if (failure.status !== undefined) return { ...base, outcome: 'failed', reason: answeredWith(url, { status: failure.status }, failure.reason), detail };
  return { ...base, outcome: 'unreachable', reason: `${what} could not be reached: ${failure.reason}`, detail };
}

export class DistributeService {
  private running: { since: string; done: Promise<DistributeAnswer> } | undefined;
  /** Identifies this process as a lease holder. */
  private readonly holder = randomUUID();

  constructor(
    private readonly nodes: NodeRepository,
    private readonly repo: DistributionRepository,
    private readonly logger: Logger,
    private readonly leases: LeaseRepository,
    private readonly metrics: NodeMetrics,
    private readonly settings: ServiceSettings,
    /** Asks the destinations (peer-fetch.ts: createPeerFetcher). */
    private readonly peers: SafeFetcher,
    private readonly clock: Clock = () => new Date(),
  ) {}

  /**
   * Starts a run, or reports the one in progress (its start time) without starting another. Runs
   * do not overlap across node processes either: a run holds the `distribution` lease in CouchDB.
   */
  async distribute(): Promise<DistributeAnswer> {
    // A description that says the service is not active: 503, for POST /distribute and a scheduled run alike.
    await this.settings.of('distribute');
    if (this.running) return { OK: true, error: '', running_since: this.running.since };
    const since = this.clock().toISOString();
    const done = this.leased(since).finally(() => { this.running = undefined; });
    this.running = { since, done };
    return done;
  }

  private async leased(since: string): Promise<DistributeAnswer> {
    // The run's own start, so that /status, running_since and last_out_run.started agree.
    const lease = await this.leases.acquire(LEASE, this.holder, LEASE_TTL_MS, since);
    if (!lease.acquired) return { OK: true, error: '', running_since: lease.since };
    if (lease.abandoned) await this.recordAbandoned(lease.abandoned.since);
    let lost = false;
    const renewal = setInterval(() => {
      this.leases.renew(LEASE, this.holder, LEASE_TTL_MS).then((held) => {
        // Renewals failed for a whole lease period and another process took the lease over: its
        // run may overlap this one (replication is idempotent: work done twice, nothing lost).
        if (!held && !lost) this.logger.warn({ since }, 'distribution lease lost while running: another node process may be running distribution at the same time');
        lost ||= !held;
      }, (error: unknown) => this.logger.warn({ err: describe(error) }, 'distribution lease renewal failed'));
    }, LEASE_TTL_MS / 3);
    renewal.unref();
    try {
      const answer = await this.run(since).catch(async (error: unknown) => {
        await this.recordRun(since, { OK: false, error: error instanceof AppError && error.expose ? error.message : 'internal error' });
        throw error;
      });
      await this.recordRun(since, answer);
      return answer;
    } finally {
      clearInterval(renewal);
      await this.leases.release(LEASE, this.holder).catch(() => undefined);
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
    await this.record({ started, finished: null, OK: false, error: ABANDONED_RUN });
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

  /** Resolves when the current run (if any) has finished; for a graceful stop. */
  async idle(): Promise<void> {
    await this.running?.done.catch(() => undefined);
  }

  private async run(at: string): Promise<DistributeAnswer> {
    // 1. The resource document database holds resource_data documents.
    if (!(await this.repo.holdsResourceData())) return { OK: false, error: 'the resource data database holds no resource_data documents' };
    // 2. The source node and community descriptions and the connectivity documents, read now.
    const [node, community, connections] = await Promise.all([this.nodes.nodeDescription(), this.nodes.communityDescription(), this.nodes.connections()]);
    if (!node || !community) throw notBootstrapped(node ? 'the community description' : 'the node description');
    const active = connections.filter((connection) => connection.active === true);
    // 3. Only one active gateway connection is allowed.
    if (active.filter((connection) => connection.gateway_connection === true).length > 1) {
      this.logger.error('distribution aborted: more than one active gateway connection');
      return { OK: false, error: 'more than one active gateway connection: only one is allowed' };
    }
    const local: LocalNodeInfo = {
      node_id: String(node.node_id), network_id: String(node.network_id), community_id: String(community.community_id),
      gateway_node: node.gateway_node === true, social_community: community.social_community === true,
    };
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
    const entry = await this.toDestination(local, connection, at);
    const destination = scrubCredentials(String(connection.destination_node_url));
    this.metrics.distributionRun({ destination, outcome: entry.outcome, docsWritten: entry.docs_written ?? 0, seconds: (performance.now() - started) / 1000 });
    return entry;
  }

  /** Source steps 4 and 5 for one connection. Never throws: every failure is an outcome. */
  private async toDestination(local: LocalNodeInfo, connection: StoredDoc, at: string): Promise<OutboundEntry> {
    const base = { connection_id: connection.connection_id ?? connection._id, last_sync: at };
    const url = String(connection.destination_node_url ?? '').replace(/\/+$/, '');
    const answer = await fetchPeerJson(this.peers, `${url}/destination`);
    if (!answer.ok) return unanswered(base, `${url}/destination`, `destination ${scrubCredentials(url)}`, answer, 'GET /destination failed');
    // It answered, so it was reached: an answer that is no node's is a failure, saying what came back.
    const info = parseDestinationAnswer(answer.status, answer.body);
    if (typeof info === 'string') return { ...base, outcome: 'failed', reason: answeredWith(`${url}/destination`, answer, info) };
    if (!info.active) return { ...base, outcome: 'skipped', reason: 'the destination node is not active' };
    const skip = skipReason(local, info, connection.gateway_connection === true);
    if (skip) return { ...base, outcome: 'skipped', reason: skip };
    // The filter function would pass nothing with a pattern it cannot compile: a run that
    // silently sends nothing looks like one with nothing to send. The destination's operator fixes it.
    const broken = filterDescriptionProblem(activeFilter(info.filter_description));
    if (broken) return { ...base, outcome: 'failed', reason: `the destination's filter description cannot be applied: ${broken}; nothing is replicated to it until its operator corrects the pattern` };
    try {
      return await this.replicateTo(url, info, base);
    } catch (error) {
      // A store failure (the destination's credentials, the replication) fails this destination
      // only: the others' runs go on and the outcome of each is recorded.
      return { ...base, outcome: 'failed', reason: error instanceof AppError && error.expose ? error.message : 'internal error', detail: describe(error) };
    }
  }

  private async replicateTo(url: string, info: TargetNodeInfo, base: EntryBase): Promise<OutboundEntry> {
    const incoming = new URL(info.incoming_url ?? `${url}${INBOUND_PATH}`);
    // The store's replicator goes where incoming_url says, so a peer could steer it (and this
    // node's probe) to any address, an internal one included: only the origin the operator
    // configured is used.
    if (incoming.origin !== new URL(url).origin) {
      return { ...base, outcome: 'failed', reason: `the destination advertises its inbound endpoint on another origin (${scrubCredentials(incoming.origin)}) than its connection (${scrubCredentials(new URL(url).origin)}); only the connection's origin is replicated to: if that is the destination's address, set destination_node_url to it` };
    }
    const credentials = await this.repo.credentialsFor(url);
    const authorization = credentials ? basicAuthorization(credentials.user, credentials.password) : undefined;
    // The spec's "SHOULD verify that the destination is reachable": its inbound endpoint answers us.
    const probe = await fetchPeerJson(this.peers, incoming.toString(), authorization);
    if (!probe.ok) return unanswered(base, incoming.toString(), `the inbound endpoint ${scrubCredentials(incoming.toString())}`, probe, 'the inbound endpoint did not answer');
    if (probe.status === 401 || probe.status === 403) return { ...base, outcome: 'failed', reason: credentialRefusal(url, probe.status, credentials !== undefined) };
    const unusable = inboundProbeProblem(probe.status, probe.body);
    if (unusable) return { ...base, outcome: 'failed', reason: answeredWith(incoming.toString(), probe, unusable) };
    const filter = activeFilter(info.filter_description);
    // query_params travel in the _changes URL query, so the description is one JSON string.
    const result = await this.repo.replicate(replicationEndpoint(incoming.toString(), authorization), filter
      ? { filter: REPLICATION_FILTER, queryParams: { filter_description: JSON.stringify(filter) } }
      : { filter: REPLICATION_FILTER, queryParams: {}, selector: { ...LIVE_FOR_DISTRIBUTION_SELECTOR } });
    const { counts } = result;
    return {
      ...base,
      outcome: result.ok ? 'ok' : 'failed',
      // Unknown counts are left out (a failed replication), not 0: documents may have arrived.
      ...(counts ? { docs_written: counts.docsWritten, docs_refused: counts.writeFailures, docs_read: counts.docsRead } : {}),
      ...(result.error ? { reason: result.error } : {}),
      ...(result.detail ? { detail: result.detail } : {}),
    };
  }
}
