/**
 * The node's own documents (spec "Other node documents referenced"), built from configuration.
 * Generated identifiers (node_id) are passed in so that they are created once and kept.
 */
import { createHash } from 'node:crypto';
import type { DeletedDataPolicy, NodeConfig } from './node-configuration.js';

export const NODE_DESCRIPTION_ID = 'node_description';
/** The CONFIG the node was last given, as written (config/node-config.ts GivenNodeConfig). */
export const NODE_CONFIG_ID = 'node_config';
export const FILTER_DESCRIPTION_ID = 'filter_description';
export const COMMUNITY_DESCRIPTION_ID = 'community_description';
export const NETWORK_DESCRIPTION_ID = 'network_description';
export const NETWORK_POLICY_ID = 'network_policy_description';

export type JsonDoc = Record<string, unknown> & { _id: string; _rev?: string };

export function buildNodeDescription(config: NodeConfig, nodeId: string): JsonDoc {
  const { node, community, network, policy } = config;
  const doc: JsonDoc = {
    _id: NODE_DESCRIPTION_ID,
    doc_type: 'node_description',
    doc_version: '0.23.0',
    doc_scope: 'node',
    active: true,
    node_id: nodeId,
    node_name: node.node_name,
    node_description: node.node_description,
    node_admin_identity: node.node_admin_identity,
    network_id: network.network_id,
    community_id: community.community_id,
    gateway_node: node.gateway_node,
    open_connect_source: node.open_connect_source,
    open_connect_dest: node.open_connect_dest,
    // The node policy is advertised here (spec: node_policy with the deleted-data policy).
    node_policy: { ...policy },
  };
  if (node.sync_frequency !== undefined) doc.sync_frequency = node.sync_frequency;
  return doc;
}

/**
 * The deleted-data policy a node description advertises (`node_policy`, built above), which
 * harvest reports as `deletedRecord` and Basic Delete keeps to. A description without one keeps
 * no deletions (`no`).
 */
export function deletedDataPolicyOf(node: Record<string, unknown>): DeletedDataPolicy {
  const policy = node.node_policy as { deleted_data_policy?: DeletedDataPolicy } | undefined;
  return policy?.deleted_data_policy ?? 'no';
}

export function buildCommunityDescription(config: NodeConfig): JsonDoc {
  return { _id: COMMUNITY_DESCRIPTION_ID, doc_type: 'community_description', doc_version: '0.20.0', doc_scope: 'community', active: true, ...config.community };
}

export function buildNetworkDescription(config: NodeConfig): JsonDoc {
  return {
    _id: NETWORK_DESCRIPTION_ID, doc_type: 'network_description', doc_version: '0.20.0', doc_scope: 'network', active: true,
    community_id: config.community.community_id, ...config.network,
  };
}

export function buildNetworkPolicy(config: NodeConfig): JsonDoc {
  return {
    _id: NETWORK_POLICY_ID, doc_type: 'policy_description', doc_version: '0.10.0', doc_scope: 'network', active: true,
    network_id: config.network.network_id, policy_id: `${config.network.network_id} Policy`, policy_version: '0.10.0',
  };
}

export function buildFilterDescription(config: NodeConfig): JsonDoc | undefined {
  if (!config.filter) return undefined;
  return { _id: FILTER_DESCRIPTION_ID, doc_type: 'filter_description', doc_version: '0.10.0', doc_scope: 'node', ...config.filter };
}

/** Connectivity documents get a stable id from their destination so configuration can be re-applied. */
export function buildConnections(config: NodeConfig, nodeUrl: string): JsonDoc[] {
  return config.connections.map((connection) => {
    const connectionId = createHash('sha256').update(connection.destination_node_url).digest('hex').slice(0, 32);
    return {
      _id: `connection:${connectionId}`, doc_type: 'connection_description', doc_version: '0.10.0', doc_scope: 'node',
      connection_id: connectionId, source_node_url: nodeUrl, ...connection,
    };
  });
}
