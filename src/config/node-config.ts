/**
 * The node's own configuration file (CONFIG): node, community, network, policy, filter,
 * connections and per-service deployment values. Validated with ajv (defaults filled in),
 * so a wrong value stops the node with a message naming the setting.
 */
import fs from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { ConfigError } from './settings.js';
import { nodeConfigSchema } from './node-config.schema.js';

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

/** ajv's message, with what it leaves out: the unknown key's name, or the values allowed. */
function describeSchemaError(error: ErrorObject): string {
  const message = error.message ?? 'invalid';
  if (error.keyword === 'additionalProperties') return `${message}: ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)} is not a setting here`;
  if (error.keyword === 'enum') return `${message}: ${((error.params as { allowedValues: unknown[] }).allowedValues).map((value) => JSON.stringify(value)).join(', ')}`;
  return message;
}

export function validateNodeConfig(input: unknown, source: string): NodeConfig {
  const ajv = new Ajv({ useDefaults: true, allErrors: false, strict: true });
  const validate = ajv.compile<NodeConfig>(nodeConfigSchema);
  const copy: unknown = structuredClone(input ?? {});
  if (!validate(copy)) {
    const first = validate.errors?.[0];
    const where = first ? `${first.instancePath || '/'}` : '/';
    throw new ConfigError(`${source}${where}`, first ? describeSchemaError(first) : 'invalid');
  }
  return copy;
}

export function loadNodeConfig(configPath: string | undefined): NodeConfig {
  if (!configPath) return validateNodeConfig({}, 'CONFIG');
  let raw: string;
  try {
    raw = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    throw new ConfigError('CONFIG', `cannot read ${configPath}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError('CONFIG', `${configPath} is not valid JSON: ${(error as Error).message}`);
  }
  return validateNodeConfig(parsed, `CONFIG ${configPath} `);
}
