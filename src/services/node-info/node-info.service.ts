/**
 * Node-level endpoints (spec "Node-level endpoints"): /status, /services, /description and
 * /pubkey, and the root, `/`, which the spec does not name. Their payloads are not shown in the
 * spec; the shapes follow the original Learning Registry node and are documented in the README.
 */
import { abandonedRunRecord } from '../../domain/abandoned-run.js';
import { notBootstrapped } from '../../errors/app-error.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import { DISTRIBUTION_LEASE, type LeaseRepository, type LeaseState } from '../../storage/lease-repository.js';
import { INDEXED_VIEW_NAMES, type IndexState, type LiveSummary, type ResourceRepository, type StoreCounters } from '../../storage/resource-repository.js';
import { seqNumber } from '../../storage/index-state.js';
import type { StoredDoc } from '../../storage/documents.js';
import { withoutStoreFields } from '../../domain/resource-document.js';
import { delay, LateRead, STORE_ANSWER_MS, withinStoreAnswer } from './status-reads.js';
import type { NodeStatus } from './status-answer.js';

const INTERNAL_FIELDS = ['doc_type', 'doc_version', 'doc_scope', 'active'];

/** A node document without the store's members (src/domain/resource-document.ts) and the fields in `drop`. */
function publicFields(doc: StoredDoc | undefined, drop: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(withoutStoreFields(doc ?? {})).filter(([key]) => !drop.includes(key)));
}

/**
 * How long /status waits for the store (issue 14, defect 8: a health check answers "always under
 * 100 ms"). Reads still running then go on behind the answer, and the next call serves them.
 */
const STATUS_WAIT_MS = 20;
/**
 * How much longer a call waits for its own counters when the last answer was current. A
 * three-member cluster's `GET /{db}` gathers every shard range from the members and often takes
 * more than STATUS_WAIT_MS; without this call's own update_seq nothing is known to be current, so
 * a quiet cluster's flags flickered to false. Only a current answer waits: while views build (the
 * answer is not current anyway) the call keeps to STATUS_WAIT_MS, so it stays under 100 ms.
 */
const CURRENT_PATIENCE_MS = 60;
/**
 * The index check behind the answers (the live count and every view's state). It is never waited
 * for past STATUS_WAIT_MS, so its own bounds can be long: an index up to `smallLag` changes
 * behind is brought up to date so that a count right after a write becomes exact.
 */
const INDEX_CHECK_BUDGET = { staleMs: 10_000, catchUpMs: 10_000, smallLag: 1000 };

/**
 * How old the last answer of the database's counters may be and still serve when this call's
 * read is late. A store that has not answered for longer is waited for, so that a hung store
 * is reported (503, after at most STORE_ANSWER_MS) rather than hidden behind an answer from memory.
 */
const COUNTERS_MAX_AGE_MS = 10_000;
/** How long /status waits for the node documents from the store before their last answer serves. */
const NODE_DOCS_PATIENCE_MS = 500;

/** The node-level endpoints the root links to (spec "Node-level endpoints", and /description). */
const NODE_ENDPOINTS = ['description', 'services', 'status', 'policy', 'pubkey', 'destination', 'auth'] as const;

/** `GET /`: which node this is, and where its endpoints are (absolute URLs, from PUBLIC_URL). */
export interface NodeHome {
  OK: true;
  node_id: unknown;
  node_name: unknown;
  node_description: unknown;
  node_endpoints: Record<(typeof NODE_ENDPOINTS)[number], string>;
  /** service_name → service_endpoint of each active service, as /services describes them. */
  service_endpoints: Record<string, string>;
}

export class NodeInfoService {
  private lastLive: LiveSummary | undefined;
  private lastIndex: IndexState | undefined;
  private indexCheck: Promise<void> | undefined;
  /** Whether this process's last answer was current (both flags): see CURRENT_PATIENCE_MS. */
  private lastAnswerCurrent = false;
  private readonly counters: LateRead<StoreCounters>;
  /**
   * The node description, the node status document and the distribution lease: from memory while
   * their feed follows, from the store after a write of this process or before the feed follows.
   * A store that hangs then must not hold /status: waited for up to NODE_DOCS_PATIENCE_MS, then
   * the last answer (if under 10 s old) serves, and past STORE_ANSWER_MS the call is a 503.
   */
  private readonly nodeDocs: LateRead<[StoredDoc, StoredDoc | undefined, LeaseState]>;

  constructor(
    private readonly nodes: NodeRepository,
    private readonly resources: ResourceRepository,
    private readonly leases: LeaseRepository,
    private readonly processStartTime: string,
    private readonly publicUrl: string,
  ) {
    this.counters = new LateRead(() => resources.counters(STORE_ANSWER_MS), COUNTERS_MAX_AGE_MS);
    this.nodeDocs = new LateRead(() => withinStoreAnswer(Promise.all([this.requiredNodeDescription(), this.nodes.nodeStatus(), this.leases.state(DISTRIBUTION_LEASE)]), 'read the node documents'), COUNTERS_MAX_AGE_MS);
  }

  private async requiredNodeDescription(): Promise<StoredDoc> {
    const node = await this.nodes.nodeDescription();
    if (!node) throw notBootstrapped('the node description');
    return node;
  }

  /**
   * Reads everything /status serves once, at start-up, so that the first call of the process
   * has an earlier answer of each part to fall back on (issue 14: it once waited up to 4 s).
   */
  async prime(): Promise<void> {
    // The node documents (the lease's too) are read once their feed follows, so that their copies are kept from then on.
    const nodeDocs = this.nodes.nodeFeedFollowing().then(() => Promise.all([this.nodes.nodeDescription(), this.nodes.nodeStatus(), this.leases.state(DISTRIBUTION_LEASE)]));
    await Promise.all([nodeDocs, this.counters.start().done, this.checkIndexes()]).catch(() => undefined);
  }

  /**
   * Reads the live count and every view's state behind the answers, one check at a time: calls
   * during a long index build share the check in progress instead of each adding view reads to
   * the store's load. Its failures are left to the cheap reads of the next /status to report.
   */
  checkIndexes(): Promise<void> {
    this.indexCheck ??= Promise.all([
      this.resources.liveSummary(INDEX_CHECK_BUDGET).then((live) => { if (live) this.lastLive = live; }),
      this.resources.indexState(INDEX_CHECK_BUDGET.staleMs).then((index) => { this.lastIndex = index; }),
    ]).then(() => undefined, () => undefined).finally(() => { this.indexCheck = undefined; });
    return this.indexCheck;
  }

  /** Whether the last index check is known to hold at `seq` (nothing to check again). */
  private checkedAt(seq: number): boolean {
    const live = this.lastLive;
    const index = this.lastIndex;
    return live !== undefined && index !== undefined && live.current && index.viewsCurrent && live.checkedSeq >= seq && seqNumber(index.updateSeq) >= seq;
  }

  /**
   * A health check (issue 14, defect 8): answers from cheap state within STATUS_WAIT_MS of store
   * time (CURRENT_PATIENCE_MS more for the counters after a current answer), never waiting for
   * an index. The node description, the node status document and the distribution lease come
   * from memory (their _changes feed); the database's counters are read at each call; the live
   * count and the views' state come from the latest index check, started here unless the last
   * one holds at this call's update_seq, and served by a later call when it takes longer. Each
   * is marked current only when checked against this call's update_seq. The count is null until
   * a first check has answered (its view is being built).
   */
  async status(): Promise<NodeStatus> {
    const deadline = delay(STATUS_WAIT_MS);
    const counters = this.counters.start();
    const nodeDocs = this.nodeDocs.start();
    // The check starts once the counters are in (or the wait is over), so that on an idle store
    // its view reads do not queue ahead of the one read every call makes.
    await Promise.race([counters.done, deadline]);
    if (!counters.arrived() && this.lastAnswerCurrent) await Promise.race([counters.done, delay(CURRENT_PATIENCE_MS)]);
    const store = await counters.answer();
    // Checked against this call's own update_seq: a count or a view check older than a write is
    // not current, and without this call's update_seq nothing is known to be.
    const seq = counters.arrived() ? seqNumber(store.updateSeq) : Number.POSITIVE_INFINITY;
    if (!this.checkedAt(seq)) await Promise.race([this.checkIndexes(), deadline]);
    await Promise.race([nodeDocs.done, delay(NODE_DOCS_PATIENCE_MS)]);
    const [node, status, lease] = await nodeDocs.answer();
    const running = lease.held;
    const live = this.lastLive;
    const index = this.lastIndex;
    // A view check older than this call's update_seq knows nothing of the writes since: every view may be behind.
    const indexHolds = index !== undefined && seqNumber(index.updateSeq) >= seq;
    const countCurrent = live !== undefined && live.current && live.checkedSeq >= seq;
    const viewsCurrent = indexHolds && index.viewsCurrent;
    this.lastAnswerCurrent = countCurrent && viewsCurrent;
    return {
      OK: true,
      node_id: node.node_id,
      node_name: node.node_name,
      active: node.active === true,
      doc_count: live?.count ?? null,
      install_time: status?.install_time ?? null,
      start_time: status?.start_time ?? null,
      process_start_time: this.processStartTime,
      earliestDatestamp: live?.earliest ?? null,
      doc_count_current: countCurrent,
      views_current: viewsCurrent,
      stale_views: indexHolds ? index.staleViews : [...INDEXED_VIEW_NAMES],
      store: { doc_count: store.docCount, update_seq: store.updateSeq },
      last_in_sync: status?.last_in_sync ?? null,
      last_out_sync: status?.last_out_sync ?? null,
      // A run whose process died is reported aborted once its lease has expired, as the run that
      // takes the lease over records it (until then its last record was an earlier run's).
      // A lease left behind by a run that recorded its own end (its process stopped before releasing it) is no aborted run.
      last_out_run: lease.leftBehind && (status?.last_out_run as { started?: unknown } | undefined)?.started !== lease.leftBehind.since ? abandonedRunRecord(lease.leftBehind.since) : status?.last_out_run ?? null,
      out_run_in_progress: running ? { since: running.since } : null,
      outbound: status?.outbound ?? {},
      timestamp: new Date().toISOString(),
    };
  }

  /** With the original node's `timestamp`, `active` and `node_name` beside the list (its services.py). */
  async services(): Promise<{ OK: true; node_id: unknown; node_name: unknown; active: boolean; timestamp: string; services: Record<string, unknown>[] }> {
    const [node, services] = await Promise.all([this.requiredNodeDescription(), this.nodes.serviceDescriptions()]);
    return { OK: true, node_id: node.node_id, node_name: node.node_name, active: node.active !== false, timestamp: new Date().toISOString(), services: services.map((doc) => publicFields(doc)) };
  }

  /**
   * `GET /policy`, which the original node served (not in the spec's list): the network policy
   * with the node's and the network's names, as its node_config.py built it.
   */
  async policy(): Promise<Record<string, unknown>> {
    const [node, network, policy] = await Promise.all([this.requiredNodeDescription(), this.nodes.networkDescription(), this.nodes.networkPolicy()]);
    return {
      OK: true,
      timestamp: new Date().toISOString(),
      node_id: node.node_id,
      node_name: node.node_name,
      ...(network?.network_name === undefined ? {} : { network_name: network.network_name }),
      ...(network?.network_description === undefined ? {} : { network_description: network.network_description }),
      ...publicFields(policy, INTERNAL_FIELDS),
    };
  }

  async home(): Promise<NodeHome> {
    const [node, services] = await Promise.all([this.requiredNodeDescription(), this.nodes.serviceDescriptions()]);
    return {
      OK: true,
      node_id: node.node_id,
      node_name: node.node_name,
      node_description: node.node_description,
      node_endpoints: Object.fromEntries(NODE_ENDPOINTS.map((name) => [name, `${this.publicUrl}/${name}`])) as NodeHome['node_endpoints'],
      service_endpoints: Object.fromEntries(services.filter((doc) => doc.active === true).map((doc) => [String(doc.service_name), String(doc.service_endpoint)])),
    };
  }

  async description(): Promise<Record<string, unknown>> {
    const [node, community, network, policy] = await Promise.all([
      this.requiredNodeDescription(), this.nodes.communityDescription(), this.nodes.networkDescription(), this.nodes.networkPolicy(),
    ]);
    return {
      OK: true,
      timestamp: new Date().toISOString(),
      ...publicFields(node),
      ...publicFields(community, INTERNAL_FIELDS),
      ...publicFields(network, [...INTERNAL_FIELDS, 'community_id']),
      network_policy: publicFields(policy),
    };
  }

  async publicKey(): Promise<string> {
    const keys = await this.nodes.nodeKeys();
    if (!keys) throw notBootstrapped('the node key pair');
    return keys.publicKey;
  }
}
