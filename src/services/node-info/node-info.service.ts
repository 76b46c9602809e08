/**
 * Node-level endpoints (spec "Node-level endpoints"): /status, /services, /description and
 * /pubkey. Their payloads are not shown in the spec; the shapes follow the original
 * Learning Registry node and are documented in the README.
 */
import { notBootstrapped } from '../../errors/app-error.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { LiveSummary, ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { withoutStoreFields } from '../../domain/resource-document.js';

const INTERNAL_FIELDS = ['doc_type', 'doc_version', 'doc_scope', 'active'];

/** A node document without the store's members (src/domain/resource-document.ts) and the fields in `drop`. */
function publicFields(doc: StoredDoc | undefined, drop: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(withoutStoreFields(doc ?? {})).filter(([key]) => !drop.includes(key)));
}

/**
 * /status budgets: a stale read that takes longer means its view is being built; an index only
 * a few changes behind is brought up to date first (so a count right after a write is exact).
 */
const STATUS_BUDGET = { staleMs: 80, catchUpMs: 500, smallLag: 100 };
/**
 * The first /status of a process has no earlier count to fall back on: it waits longer for an
 * index a little behind (sample data just loaded), never for one far behind (a restart over many
 * new documents answers at once with the count as last indexed).
 */
const FIRST_STATUS_BUDGET = { staleMs: 2000, catchUpMs: 2000, smallLag: 1000 };

export interface NodeStatus {
  OK: true;
  node_id: unknown;
  node_name: unknown;
  active: boolean;
  doc_count: number;
  install_time: unknown;
  start_time: unknown;
  process_start_time: string;
  earliestDatestamp: string | null;
  /** false: doc_count and earliestDatestamp are as last indexed; the index is catching up. */
  doc_count_current: boolean;
  /** Whether every view has indexed the whole database (reads of a stale view may wait or 503). */
  views_current: boolean;
  stale_views: string[];
  /** The database's own counters (every document, tombstones and design documents included). */
  store: { doc_count: number; update_seq: string | number };
  last_in_sync: unknown;
  last_out_sync: unknown;
  outbound: unknown;
  timestamp: string;
}

export class NodeInfoService {
  private lastLive: LiveSummary | undefined;

  constructor(
    private readonly nodes: NodeRepository,
    private readonly resources: ResourceRepository,
    private readonly processStartTime: string,
  ) {}

  private async requiredNodeDescription(): Promise<StoredDoc> {
    const node = await this.nodes.nodeDescription();
    if (!node) throw notBootstrapped('the node description');
    return node;
  }

  /**
   * A health check: answers from cheap state, never waiting for an index build (issue 14: under
   * 100 ms). While the live-count view is being built, the last count this process saw answers;
   * with none yet (the first /status of a process), FIRST_STATUS_BUDGET applies.
   */
  async status(): Promise<NodeStatus> {
    const [node, status, fresh, index] = await Promise.all([
      this.requiredNodeDescription(), this.nodes.nodeStatus(), this.resources.liveSummary(this.lastLive ? STATUS_BUDGET : FIRST_STATUS_BUDGET), this.resources.indexState(STATUS_BUDGET.staleMs),
    ]);
    const summary = fresh ?? (this.lastLive ? { ...this.lastLive, current: false } : { count: 0, earliest: undefined, current: false });
    if (fresh) this.lastLive = fresh;
    return {
      OK: true,
      node_id: node.node_id,
      node_name: node.node_name,
      active: node.active === true,
      doc_count: summary.count,
      install_time: status?.install_time ?? null,
      start_time: status?.start_time ?? null,
      process_start_time: this.processStartTime,
      earliestDatestamp: summary.earliest ?? null,
      doc_count_current: summary.current,
      views_current: index.viewsCurrent,
      stale_views: index.staleViews,
      store: { doc_count: index.docCount, update_seq: index.updateSeq },
      last_in_sync: status?.last_in_sync ?? null,
      last_out_sync: status?.last_out_sync ?? null,
      outbound: status?.outbound ?? {},
      timestamp: new Date().toISOString(),
    };
  }

  async services(): Promise<{ OK: true; node_id: unknown; services: Record<string, unknown>[] }> {
    const [node, services] = await Promise.all([this.requiredNodeDescription(), this.nodes.serviceDescriptions()]);
    return { OK: true, node_id: node.node_id, services: services.map((doc) => publicFields(doc)) };
  }

  async description(): Promise<Record<string, unknown>> {
    const [node, community, network, policy] = await Promise.all([
      this.requiredNodeDescription(), this.nodes.communityDescription(), this.nodes.networkDescription(), this.nodes.networkPolicy(),
    ]);
    return {
      OK: true,
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
