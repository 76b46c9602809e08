/**
 * The node configuration (CONFIG) as the node's rules read it once it is valid: node, community,
 * network, policy, filter, connections and per-service deployment values, as plain data. The
 * types live in domain/ so that the rules built on them (node-documents.ts,
 * service-descriptions.ts) need nothing from config/, which validates a file into them
 * (config/node-config.ts) and sits above domain/ (.dependency-cruiser.cjs).
 */
export type DeletedDataPolicy = 'no' | 'persistent' | 'transient';

export interface NodePolicy {
  /** Reported as OAI-PMH `deletedRecord` and JSON harvest `deletedRecord`. */
  deleted_data_policy: DeletedDataPolicy;
  accept_anonymous: boolean;
  accept_unsigned: boolean;
  verify_signatures: boolean;
  check_trusted_submitters: boolean;
  trusted_submitters: string[];
  /** Empty list: any ToS URL is accepted. */
  accepted_tos: string[];
  max_document_size: number;
  trusted_super_keys: string[];
  store_attachments: boolean;
  allow_private_fetch: boolean;
  /** Sign unsigned documents that an account publishes as its own submitter, with the node's key. */
  proxy_sign: boolean;
}

export interface ServiceDeployment {
  active: boolean;
  service_name?: string;
  service_description?: string;
  service_auth: { service_authz: string[]; service_key: boolean; service_https: boolean };
  service_data: Record<string, unknown>;
}

export type ServiceKey = 'publish' | 'sword' | 'delete' | 'distribute' | 'obtain' | 'harvest' | 'oai_pmh' | 'slice';

export interface FilterRule { filter_key: string; filter_value: string }

export interface NodeConfig {
  node: {
    node_name: string;
    node_description: string;
    node_admin_identity: string;
    gateway_node: boolean;
    open_connect_source: boolean;
    open_connect_dest: boolean;
    sync_frequency?: number;
  };
  community: { community_id: string; community_name: string; community_description: string; social_community: boolean; community_admin_identity: string };
  network: { network_id: string; network_name: string; network_description: string; network_admin_identity: string };
  policy: NodePolicy;
  filter?: { filter_name: string; include_exclude: boolean; custom_filter: boolean; active: boolean; filter: FilterRule[] };
  connections: { destination_node_url: string; gateway_connection: boolean; active: boolean }[];
  services: Record<ServiceKey, ServiceDeployment>;
  /** Credentials allowed to call network operations such as /distribute. */
}
