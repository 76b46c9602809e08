/**
 * JSON schema of the CONFIG file, with the defaults a public node would use
 * (README "Configuration" lists them). Values of service_data are the limits the spec requires
 * every implementation to state in its service descriptions ("Limits").
 */
const bool = (value: boolean) => ({ type: 'boolean', default: value });
const str = (value: string) => ({ type: 'string', default: value });
const strings = { type: 'array', items: { type: 'string' }, default: [] as string[] };

/** `data`'s values as the defaults of its properties, each with its schema in `dataSchema` if any. */
function propertyDefaults(data: Record<string, unknown>, dataSchema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, { ...(dataSchema[key] as Record<string, unknown> | undefined), default: value }]));
}

/**
 * `data`: the service_data of a CONFIG without one. `absentMeans`: keys whose absence has a meaning
 * of its own (obtain's limits: "absent means return all", spec "Service_data by service"), so a
 * service_data given without them does not get them.
 */
function service(authz: string[], data: Record<string, unknown>, dataSchema: Record<string, unknown> = {}, absentMeans: string[] = []) {
  const merged = Object.fromEntries(Object.entries(data).filter(([key]) => !absentMeans.includes(key)));
  return {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
      active: bool(true),
      service_name: { type: 'string' },
      service_description: { type: 'string' },
      service_auth: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: {
          service_authz: { type: 'array', items: { type: 'string', enum: ['none', 'basicauth', 'oauth', 'ssh'] }, default: authz },
          service_key: bool(false),
          service_https: bool(false),
        },
      },
      // Each default is the property's own: a service_data in CONFIG that gives some keys keeps
      // the defaults of the others (the limits a node must state), instead of replacing them all.
      service_data: { type: 'object', default: data, properties: { ...dataSchema, ...propertyDefaults(merged, dataSchema) } },
    },
  };
}

const positiveInt = { type: 'integer', minimum: 0 };

export const nodeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $comment: { type: 'string' },
    node: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        node_name: str('Learning Registry node'),
        node_description: str('A resource distribution node of the Learning Registry'),
        node_admin_identity: str('admin@example.org'),
        gateway_node: bool(false),
        open_connect_source: bool(true),
        open_connect_dest: bool(true),
        sync_frequency: { type: 'integer', minimum: 1, description: 'minutes between scheduled distributions; absent: off' },
      },
    },
    community: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        community_id: str('Learning Registry Open, Public Community'),
        community_name: str('Learning Registry Open, Public Community'),
        community_description: str('Learning Registry Open, Public Community'),
        social_community: bool(true),
        community_admin_identity: str('community.admin@example.org'),
      },
    },
    network: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        network_id: str('Learning Registry Open, Public Network'),
        network_name: str('Learning Registry Open, Public Network'),
        network_description: str('Learning Registry Open, Public Network'),
        network_admin_identity: str('network.admin@example.org'),
      },
    },
    policy: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        deleted_data_policy: { type: 'string', enum: ['no', 'persistent', 'transient'], default: 'transient' },
        accept_anonymous: bool(true),
        accept_unsigned: bool(true),
        verify_signatures: bool(false),
        check_trusted_submitters: bool(false),
        trusted_submitters: strings,
        accepted_tos: strings,
        max_document_size: { type: 'integer', minimum: 1024, default: 1048576 },
        trusted_super_keys: strings,
        store_attachments: bool(true),
        allow_private_fetch: bool(false),
        proxy_sign: bool(true),
      },
    },
    filter: {
      type: 'object', additionalProperties: false, required: ['filter'],
      properties: {
        filter_name: str('node filter'),
        include_exclude: bool(true),
        custom_filter: bool(false),
        active: bool(true),
        filter: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['filter_key'], properties: { filter_key: { type: 'string' }, filter_value: { type: 'string' } } },
        },
      },
    },
    connections: {
      type: 'array', default: [],
      items: {
        type: 'object', additionalProperties: false, required: ['destination_node_url'],
        properties: { destination_node_url: { type: 'string', pattern: '^https?://' }, gateway_connection: bool(false), active: bool(true) },
      },
    },
    services: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        publish: service(['basicauth'], { doc_limit: 1000, msg_size_limit: 10485760 }, { doc_limit: positiveInt, msg_size_limit: positiveInt }),
        sword: service(['basicauth'], { version: '1.3' }),
        delete: service(['basicauth'], { delete_action: 'mark', doc_limit: 100, msg_size_limit: 1048576 }, { delete_action: { enum: ['ignore', 'mark', 'delete', 'purge'] }, doc_limit: positiveInt, msg_size_limit: positiveInt }),
        distribute: service(['basicauth'], {}),
        obtain: service(['none'], { doc_limit: 100, id_limit: 1000, spec_kv_only: false, flow_control: true }, { doc_limit: positiveInt, id_limit: positiveInt, spec_kv_only: { type: 'boolean' }, flow_control: { type: 'boolean' } }, ['doc_limit', 'id_limit']),
        harvest: service(['none'], { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 100, id_limit: 1000, flow_control: true, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }], setSpec: null }, { granularity: { enum: ['YYYY-MM-DD', 'YYYY-MM-DDThh:mm:ssZ'] } }),
        oai_pmh: service(['none'], { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 100, id_limit: 1000, flow_control: true, version: 'OAI-PMH 2.0', metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }] }, { granularity: { enum: ['YYYY-MM-DD', 'YYYY-MM-DDThh:mm:ssZ'] } }),
        slice: service(['none'], { doc_limit: 100, id_limit: 1000, flow_control: true }),
      },
    },
  },
} as const;
