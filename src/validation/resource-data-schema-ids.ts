/**
 * The names of the resource data schemas (resource-data-schemas.ts) and what they are built
 * over: the supported `doc_version`s, the two stages (stored, submitted) and the payload
 * placements. The ids are names, never fetched.
 */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Base of all schema ids. `.invalid` is a reserved TLD: the ids are names, never fetched. */
export const RESOURCE_DATA_SCHEMA_BASE = 'https://lr-node.invalid/schema/resource_data/';
export const DEFS_SCHEMA_ID = `${RESOURCE_DATA_SCHEMA_BASE}defs.json`;

export const SUPPORTED_DOC_VERSIONS = ['0.23.0', '0.49.0', '0.51.0'] as const;
export type DocVersion = (typeof SUPPORTED_DOC_VERSIONS)[number];

export type Stage = 'stored' | 'submitted';
export const STAGES: readonly Stage[] = ['stored', 'submitted'];

/** Payload placements a version schema exists for. `deleted` is `payload_placement: none`. */
export type Placement = 'inline' | 'linked' | 'attachment' | 'deleted';
export type AbstractKind = 'resource_data' | 'inline' | 'linked' | 'attachment';

export const PLACEMENTS_BY_VERSION: Readonly<Record<DocVersion, readonly Placement[]>> = {
  '0.23.0': ['inline', 'linked', 'attachment'],
  '0.49.0': ['inline', 'linked', 'attachment', 'deleted'],
  '0.51.0': ['inline', 'linked', 'attachment', 'deleted'],
};

/** Every `payload_placement` value the abstract schema accepts. */
export const PAYLOAD_PLACEMENT_VALUES = ['inline', 'linked', 'attachment', 'attached', 'none'] as const;

/** Fields the publishing node sets; required only in the `stored` stage. */
export const NODE_ASSIGNED_FIELDS = [
  'doc_ID',
  'publishing_node',
  'node_timestamp',
  'create_timestamp',
  'update_timestamp',
] as const;

const VERSION_DIR: Readonly<Record<DocVersion, string>> = {
  '0.23.0': 'v_0_23',
  '0.49.0': 'v_0_49',
  '0.51.0': 'v_0_51',
};

export function isSupportedDocVersion(value: unknown): value is DocVersion {
  return typeof value === 'string' && (SUPPORTED_DOC_VERSIONS as readonly string[]).includes(value);
}

export function abstractSchemaId(stage: Stage, kind: AbstractKind): string {
  const name = kind === 'resource_data' ? 'abstract_resource_data' : `abstract_${kind}_resource_data`;
  return `${RESOURCE_DATA_SCHEMA_BASE}${stage}/${name}.json`;
}

export function versionSchemaId(stage: Stage, version: DocVersion, placement: Placement): string {
  return `${RESOURCE_DATA_SCHEMA_BASE}${stage}/${VERSION_DIR[version]}/${placement}_resource_data.json`;
}

/** Union of every placement of one version. */
export function versionUnionSchemaId(stage: Stage, version: DocVersion): string {
  return `${RESOURCE_DATA_SCHEMA_BASE}${stage}/${VERSION_DIR[version]}/resource_data.json`;
}

/** Union of every supported version. */
export function anyVersionSchemaId(stage: Stage): string {
  return `${RESOURCE_DATA_SCHEMA_BASE}${stage}/any/resource_data.json`;
}
