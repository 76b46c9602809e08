/**
 * Node-level endpoints (spec "Node-level endpoints"): /status, /services, /description and
 * /pubkey. Their payloads are not shown in the spec; the shapes follow the original
 * Learning Registry node and are documented in the README.
 */
import { AppError } from '../../errors/app-error.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';

const INTERNAL_FIELDS = ['_id', '_rev', 'doc_type', 'doc_version', 'doc_scope', 'active'];

function publicFields(doc: StoredDoc | undefined, drop: readonly string[] = ['_id', '_rev']): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc ?? {})) if (!drop.includes(key)) result[key] = value;
  return result;
}

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
  last_in_sync: unknown;
  last_out_sync: unknown;
  outbound: unknown;
  timestamp: string;
}

export class NodeInfoService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly resources: ResourceRepository,
    private readonly processStartTime: string,
  ) {}

  private async requiredNodeDescription(): Promise<StoredDoc> {
    const node = await this.nodes.nodeDescription();
    if (!node) throw new AppError(503, 'store_unavailable', 'the node description is missing: the node has not been bootstrapped');
    return node;
  }

  async status(): Promise<NodeStatus> {
    const [node, status, live] = await Promise.all([this.requiredNodeDescription(), this.nodes.nodeStatus(), this.resources.liveSummary()]);
    return {
      OK: true,
      node_id: node.node_id,
      node_name: node.node_name,
      active: node.active === true,
      doc_count: live.count,
      install_time: status?.install_time ?? null,
      start_time: status?.start_time ?? null,
      process_start_time: this.processStartTime,
      earliestDatestamp: live.earliest ?? null,
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
      network_policy: publicFields(policy, ['_id', '_rev']),
    };
  }

  async publicKey(): Promise<string> {
    const keys = await this.nodes.nodeKeys();
    if (!keys) throw new AppError(503, 'store_unavailable', 'the node key pair is missing: the node has not been bootstrapped');
    return keys.publicKey;
  }
}
