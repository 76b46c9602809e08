/** `GET /destination` (spec "Distribution"): this node as a destination, plus what a source needs to replicate to it. */
import type { NodeRepository } from '../../storage/node-repository.js';
import { notBootstrapped } from '../../errors/app-error.js';
import { INBOUND_PATH, type TargetNodeInfo } from './destination-info.js';
import { withoutStoreFields } from '../../domain/resource-document.js';
import { checkFilterPatterns, type FilterDescription } from '../../domain/filters.js';

export class DestinationService {
  constructor(private readonly nodes: NodeRepository, private readonly publicUrl: string) {}

  async info(): Promise<{ OK: true; error: string; target_node_info: TargetNodeInfo; taget_node_info: TargetNodeInfo }> {
    const [node, community, filter] = await Promise.all([this.nodes.nodeDescription(), this.nodes.communityDescription(), this.nodes.filterDescription()]);
    if (!node || !community) throw notBootstrapped(node ? 'the community description' : 'the node description');
    const filterDescription = withoutStoreFields(filter ?? {});
    // A pattern edited into the store that the filter cannot compile: a source would replicate
    // nothing with it (or, before, everything an excluding filter meant to keep out), and this
    // node's inbound refuses every batch. Answered as publish answers it: 500 naming the pattern, logged.
    checkFilterPatterns(filterDescription as FilterDescription);
    const info: TargetNodeInfo = {
      active: node.active !== false,
      node_id: String(node.node_id),
      network_id: String(node.network_id),
      community_id: String(community.community_id),
      gateway_node: node.gateway_node === true,
      social_community: community.social_community === true,
      incoming_url: `${this.publicUrl}${INBOUND_PATH}`,
      filter_description: filterDescription,
    };
    // An original node as source reads only the key its code misspells (LearningRegistry
    // LR/lr/controllers/distribute.py: __TARGET_NODE_INFO = 'taget_node_info') and skips the
    // connection without it: the same object under both names lets it distribute to this node.
    return { OK: true, error: '', target_node_info: info, taget_node_info: info };
  }
}
