/**
 * JSON schema of the CONFIG file, with the defaults a public node would use
 * (README "Configuration" lists them). Values of service_data are the limits the spec requires
 * every implementation to state in its service descriptions ("Limits").
 */
import { MAX_ID_LENGTH } from '../domain/id-lookup.js';

const bool = (value: boolean) => ({ type: 'boolean', default: value });
const str = (value: string) => ({ type: 'string', default: value });
const strings = { type: 'array', items: { type: 'string' }, default: [] as string[] };

/**
 * One key of a service's service_data: its schema, with the node's value as `default` when the
 * node states one. Every service_data is closed: a key the service does not know (a typo such as
 * `doc_limt`) stops the node, where it was advertised and ignored.
 */
type DataKey = Record<string, unknown>;

/**
 * `data`: the service_data keys of the service (spec "Service description document (common
 * shape)", table "Service_data by service"). `about`: what the service_data is, said when a key
 * is refused.
 */
function service(authz: string[], data: Record<string, DataKey>, about?: string) {
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
          // The spec gives no access-key scheme, and the node has none: true advertised a requirement nothing checked.
          service_key: { type: 'boolean', const: false, default: false, description: 'this node takes no access key: service_authz says which credentials a service takes' },
          // True only with an https PUBLIC_URL (runtime.ts, checkHttpsRequirement).
          service_https: bool(false),
        },
      },
      // Each default is the property's own: a service_data in CONFIG that gives some keys keeps
      // the defaults of the others (the limits a node must state), instead of replacing them all.
      service_data: { type: 'object', additionalProperties: false, default: {}, properties: data, ...(about ? { description: about } : {}) },
    },
  };
}

/** A whole number at least `minimum` (and at most `maximum`), with the node's value. */
const count = (value: number, minimum: number, maximum?: number, about?: string): DataKey => ({
  type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }), default: value, ...(about ? { description: about } : {}),
});
const flag = (value: boolean): DataKey => ({ type: 'boolean', default: value });
const granularity: DataKey = { enum: ['YYYY-MM-DD', 'YYYY-MM-DDThh:mm:ssZ'], default: 'YYYY-MM-DDThh:mm:ssZ' };
/** OAI-PMH 2.0 §4.4 ListMetadataFormats: a format is its prefix, schema and namespace. */
const metadataformats: DataKey = {
  type: 'array',
  default: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }],
  items: {
    type: 'object', additionalProperties: false, required: ['metadataFormat'],
    properties: {
      metadataFormat: {
        type: 'object', additionalProperties: false, required: ['metadataPrefix'],
        properties: { metadataPrefix: { type: 'string', minLength: 1 }, schema: { type: 'string' }, metadataNamespace: { type: 'string' } },
      },
    },
  },
};
/** The oldest datestamp harvest offers, in one of the two forms of OAI-PMH 2.0 §3.3.1 (harvest-settings.ts). */
const earliestDatestamp: DataKey = { type: 'string', format: 'datestamp' };
/**
 * The service_data keys a CONFIG may set to null, so that the description leaves them out: for
 * obtain's limits, absence in a service description means "return all" (spec "Service
 * description document (common shape)", table "Service_data by service", Basic Obtain; and
 * "Limits": "absent means return all"). That is what the description says, not what a file says by
 * leaving a key out: a CONFIG that leaves out a limit keeps the node's (README "Configuration"),
 * as one that gave obtain only a doc_limit once lost its id_limit and answered every id in one
 * page. No limit is then a choice the file states.
 */
export const NULL_STATES_NONE: Readonly<Record<string, readonly string[]>> = { obtain: ['doc_limit', 'id_limit'] };
const noneOr = (key: DataKey): DataKey => ({ ...key, nullable: true, description: 'or null to state no limit, which the spec reads as "return all"' });

/** Harvest pages hold at most 1000 records, or headers, whatever the description says (harvest-settings.ts MAX_PAGE). */
const harvestPage = count(100, 1, 1000, 'records in one page of listrecords and ListRecords: the node pages by at most 1000');
/**
 * The page of the identifier lists (listidentifiers, ListIdentifiers). 100 as records, as in the
 * Learning Registry's own harvest and OAI-PMH descriptions (test/fixtures/node-config/node-db-dump.json):
 * an OAI-PMH ListIdentifiers page reads each record to know it can be disseminated (list.ts), so
 * 1000 headers cost 0.6-0.8 s a page on the embedded store, against 0.1 s for 100.
 */
const harvestIdPage = count(100, 1, 1000, 'headers in one page of listidentifiers and ListIdentifiers: the node pages by at most 1000');

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
        trusted_super_keys: { type: 'array', items: { type: 'string', format: 'openpgp-fingerprint' }, default: [] as string[] },
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
        properties: { destination_node_url: { type: 'string', format: 'node-url' }, gateway_connection: bool(false), active: bool(true) },
      },
    },
    services: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        // A limit of 0 would be advertised and not applied (publish and delete read 0 as "none").
        publish: service(['basicauth', 'oauth'], { doc_limit: count(1000, 1), msg_size_limit: count(10485760, 1) }),
        // Spec "Service_data by service": SWORD publish's `version` is the literal 1.3.
        sword: service(['basicauth', 'oauth'], { version: { const: '1.3', default: '1.3' }, collection_policy: { type: 'string' } }),
        delete: service(['basicauth', 'oauth'], { delete_action: { enum: ['ignore', 'mark', 'delete', 'purge'], default: 'mark' }, doc_limit: count(100, 1), msg_size_limit: count(1048576, 1) }),
        distribute: service(['basicauth'], {}, 'the spec gives Distribution no service_data'),
        // 0 is the spec's "ALL is invalid"; null states no limit (NULL_STATES_NONE).
        // The request's own limits too (services/obtain/obtain-request.ts): the spec's "MUST state any size limits".
        obtain: service(['none'], {
          doc_limit: noneOr(count(100, 0)), id_limit: noneOr(count(1000, 0)), spec_kv_only: flag(false), flow_control: flag(true),
          msg_size_limit: count(1048576, 1), request_id_limit: count(10000, 1, 100000), id_length_limit: count(MAX_ID_LENGTH, 1, 65536),
        }),
        harvest: service(['none'], {
          granularity, doc_limit: harvestPage, id_limit: harvestIdPage, flow_control: flag(true), metadataformats,
          setSpec: { type: 'null', default: null, description: 'this node has no sets: listsets answers noSetHierarchy' }, earliestDatestamp,
        }),
        oai_pmh: service(['none'], {
          granularity, doc_limit: harvestPage, id_limit: harvestIdPage,
          flow_control: { const: true, default: true, description: 'OAI-PMH lists always page with resumption tokens, OAI-PMH 2.0 §3.5' },
          version: { const: 'OAI-PMH 2.0', default: 'OAI-PMH 2.0' }, metadataformats, schemalocation: { type: 'string', format: 'http-url' }, earliestDatestamp,
        }),
        slice: service(['none'], { doc_limit: count(100, 1), id_limit: count(1000, 1), flow_control: flag(true) }),
      },
    },
  },
} as const;
