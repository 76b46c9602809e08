/**
 * Source steps 1 to 3 (spec "Distribution"): what must hold before any destination is asked (resource
 * data to send, the node and community descriptions, at most one active gateway connection), read at
 * each run so that connections added while the node runs take effect. A run that fails one is
 * aborted: its answer (OK false) is recorded as the run's outcome, and no destination is tried.
 */
import type { Logger } from 'pino';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { DistributionRepository } from '../../storage/distribution-outbound.js';
import { notBootstrapped } from '../../errors/app-error.js';
import type { LocalNodeInfo } from './destination-info.js';

/** This node as the skip rules see it, and the active connections to run; or why the run is aborted. */
export type SourceReady = { ok: true; local: LocalNodeInfo; active: StoredDoc[] } | { ok: false; error: string };

export async function sourceReady(nodes: NodeRepository, repo: DistributionRepository, logger: Logger): Promise<SourceReady> {
  // 1. The resource document database holds resource_data documents.
  if (!(await repo.holdsResourceData())) return { ok: false, error: 'the resource data database holds no resource_data documents' };
  // 2. The source node and community descriptions and the connectivity documents, read now.
  const [node, community, connections] = await Promise.all([nodes.nodeDescription(), nodes.communityDescription(), nodes.connections()]);
  if (!node || !community) throw notBootstrapped(node ? 'the community description' : 'the node description');
  const active = connections.filter((connection) => connection.active === true);
  // 3. Only one active gateway connection is allowed.
  if (active.filter((connection) => connection.gateway_connection === true).length > 1) {
    logger.error('distribution aborted: more than one active gateway connection');
    return { ok: false, error: 'more than one active gateway connection: only one is allowed' };
  }
  const local: LocalNodeInfo = {
    node_id: String(node.node_id), network_id: String(node.network_id), community_id: String(community.community_id),
    gateway_node: node.gateway_node === true, social_community: community.social_community === true,
  };
  return { ok: true, local, active };
}
