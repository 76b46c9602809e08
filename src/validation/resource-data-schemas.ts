/**
 * JSON Schemas (draft 2020-12) for Learning Registry resource data description documents
 * (`doc_type` `resource_data`), `doc_version` 0.23.0, 0.49.0 and 0.51.0.
 *
 * Written for this node; the field rules follow the original Learning Registry draft-03
 * schemas (LR/lr/schema/...), which were "abstract" schemas extended per payload placement
 * and per version:
 *
 * - `abstract_resource_data`: every common field with its type; open (unknown keys allowed).
 * - `abstract_{inline,linked,attachment}_resource_data`: the abstract schema plus what a
 *   placement requires (inline: `resource_data`; linked: `payload_locator`; both:
 *   `payload_placement` and `payload_schema`).
 * - `v_0_XX/{inline,linked,attachment,deleted}_resource_data`: closed schemas for one
 *   version and placement (only the listed keys, `X_*` extension keys, and — for stored
 *   documents — CouchDB's own `_id`, `_rev`, ... members). Here they are written out flat
 *   (abstract + placement + version), which is what draft-03 `extends` meant.
 * - `v_0_XX/resource_data` (any placement of one version) and `any/resource_data` (any
 *   supported version): unions, as in the original.
 *
 * Every schema exists in two stages:
 * - `stored`: the document as stored at / distributed between nodes. As in the original
 *   schemas, the node-assigned fields `doc_ID`, `publishing_node`, `node_timestamp`,
 *   `create_timestamp` and `update_timestamp` are required.
 * - `submitted`: the document as a client publishes it. The node assigns those five fields
 *   (the original node stamped them before validating), so here they are optional, but
 *   still type-checked when present.
 *
 * Version differences (from the original schemas):
 * - 0.23.0: `resource_locator` is a string; no `replaces`; no deletion documents.
 * - 0.49.0: `resource_locator` is a string or a non-empty array of strings; optional
 *   `replaces` (array of doc_ID strings); deletion documents (`payload_placement` `none`).
 * - 0.51.0: as 0.49.0, and inline `resource_data` must be a string.
 *
 * Deletion documents (`payload_placement` `none`, or absent, with a non-empty `replaces`)
 * may omit `resource_locator`, `payload_schema` and `resource_data_type`, and carry no
 * `resource_data` / `payload_locator`.
 *
 * Attachment placement: the original abstract schema allowed the value `attached` but had
 * no per-version attachment schema; the node spec names the value `attachment`. Both
 * spellings are accepted; the resource data itself lives in CouchDB `_attachments`.
 */
import type { SchemaObject } from 'ajv/dist/2020.js';
import { LR_DATE_TIME_FORMAT } from './lr-date-time.js';
import { MAX_ID_LENGTH } from '../domain/id-lookup.js';

import {
  abstractSchemaId, anyVersionSchemaId, DEFS_SCHEMA_ID, JSON_SCHEMA_DIALECT, NODE_ASSIGNED_FIELDS, PAYLOAD_PLACEMENT_VALUES,
  PLACEMENTS_BY_VERSION, STAGES, SUPPORTED_DOC_VERSIONS, versionSchemaId, versionUnionSchemaId,
  type DocVersion, type Placement, type Stage,
} from './resource-data-schema-ids.js';

const ATTACHMENT_VALUES = ['attachment', 'attached'];

const def = (name: string): SchemaObject => ({ $ref: `${DEFS_SCHEMA_ID}#/$defs/${name}` });
const str: SchemaObject = { type: 'string' };

/**
 * A resource locator: a string no longer than MAX_ID_LENGTH. An empty one is taken, though obtain
 * cannot ask for it: a real signed document of the samples has one (the inBloom LRMI record).
 */
const locator: SchemaObject = { type: 'string', maxLength: MAX_ID_LENGTH };

/** Shared field definitions, referenced by every other schema. */
const resourceDataDefsSchema: SchemaObject = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: DEFS_SCHEMA_ID,
  title: 'Learning Registry resource data: shared field definitions',
  $defs: {
    timestamp: {
      description: 'UTC ISO 8601 date-time ending in Z, up to 6 fraction digits',
      type: 'string',
      format: LR_DATE_TIME_FORMAT,
    },
    string_list: { type: 'array', items: str },
    identity: {
      type: 'object',
      properties: {
        submitter_type: { type: 'string', enum: ['anonymous', 'user', 'agent'] },
        submitter: { description: 'identity of the submitter of the resource data; immutable', type: 'string' },
        curator: { description: 'identity of the curator of the resource data description; immutable', type: 'string' },
        owner: { description: 'identity of the owner of the resource; immutable', type: 'string' },
        signer: { description: 'identity of the key owner used to sign the submission; immutable', type: 'string' },
      },
      required: ['submitter_type', 'submitter'],
      additionalProperties: false,
    },
    TOS: {
      description: 'terms of service',
      type: 'object',
      properties: {
        submission_TOS: { description: 'agreed terms of service (a URL of the terms)', type: 'string' },
        submission_attribution: { description: 'attribution statement from the submitter', type: 'string' },
      },
      required: ['submission_TOS'],
      additionalProperties: false,
    },
    digital_signature: {
      description: 'digital signature of the submission (LR-PGP.1.0)',
      type: 'object',
      properties: {
        signature: { type: 'string' },
        key_location: { type: 'array', minItems: 1, items: str },
        signing_method: { type: 'string', enum: ['LR-PGP.1.0'] },
        key_owner: { type: 'string' },
      },
      required: ['signature', 'key_location', 'signing_method'],
      additionalProperties: false,
    },
    payload_schema: {
      description: 'format identifiers of the resource data',
      type: 'array',
      minItems: 1,
      items: str,
    },
    weight: { description: 'submitter assigned weight (strength)', type: 'integer', minimum: -100, maximum: 100 },
    /** Abstract: a string or an array (the versions narrow it). */
    resource_locator: { description: 'locator of the resource described', type: ['string', 'array'], maxLength: MAX_ID_LENGTH, items: locator },
    /** 0.23.0 */
    resource_locator_single: locator,
    /** 0.49.0 and later */
    resource_locator_multi: { type: ['string', 'array'], maxLength: MAX_ID_LENGTH, minItems: 1, items: locator },
    replaces: { description: 'doc_IDs of the documents this document replaces', type: 'array', items: str },
    replaces_non_empty: { type: 'array', minItems: 1, items: str },
  },
};

/** Every common field of the abstract schema (what the original listed). */
function commonProperties(): Record<string, SchemaObject> {
  return {
    doc_type: { type: 'string', const: 'resource_data' },
    doc_ID: { type: 'string', maxLength: MAX_ID_LENGTH },
    doc_version: str,
    resource_data_type: str,
    active: { type: 'boolean' },
    identity: def('identity'),
    submitter_timestamp: def('timestamp'),
    submitter_TTL: def('timestamp'),
    publishing_node: { description: 'node_id of the node where the document entered the network', type: 'string' },
    // The spec's spelling of the same field (spec "Resources and their fields"); this node stores both.
    publish_node: { description: 'node_id of the node where the document entered the network (spec spelling)', type: 'string' },
    node_timestamp: def('timestamp'),
    create_timestamp: def('timestamp'),
    update_timestamp: def('timestamp'),
    TOS: def('TOS'),
    do_not_distribute: str,
    weight: def('weight'),
    digital_signature: def('digital_signature'),
    resource_locator: def('resource_locator'),
    keys: def('string_list'),
    resource_TTL: { description: 'TTL of the resource, in days', type: 'integer' },
    payload_schema: def('payload_schema'),
    payload_placement: { type: 'string', enum: [...PAYLOAD_PLACEMENT_VALUES] },
    payload_schema_locator: str,
    payload_schema_format: str,
  };
}

/** CouchDB's own members, present on documents read from or replicated between databases. */
function couchMemberProperties(): Record<string, SchemaObject> {
  return {
    _id: str,
    _rev: str,
    _attachments: { type: 'object' },
    _revisions: { type: 'object' },
    _revs_info: { type: 'array' },
    _conflicts: { type: 'array' },
    _deleted_conflicts: { type: 'array' },
    _local_seq: {},
  };
}

const EXTENSION_KEYS = { '^X_': true };

function baseRequired(stage: Stage): string[] {
  const always = ['doc_type', 'doc_version', 'resource_data_type', 'active', 'identity', 'TOS'];
  return stage === 'stored' ? [...always, ...NODE_ASSIGNED_FIELDS] : always;
}

function stageProperties(stage: Stage): Record<string, SchemaObject> {
  return stage === 'stored' ? { ...commonProperties(), ...couchMemberProperties() } : commonProperties();
}

interface PlacementRules {
  properties: Record<string, SchemaObject>;
  required: string[];
}

const PLACEMENT_RULES: Readonly<Record<Placement, PlacementRules>> = {
  inline: {
    properties: { payload_placement: { type: 'string', const: 'inline' }, resource_data: {} },
    required: ['payload_placement', 'resource_data', 'payload_schema'],
  },
  linked: {
    properties: { payload_placement: { type: 'string', const: 'linked' }, payload_locator: str },
    required: ['payload_placement', 'payload_locator', 'payload_schema'],
  },
  attachment: {
    properties: { payload_placement: { type: 'string', enum: ATTACHMENT_VALUES } },
    required: ['payload_placement', 'payload_schema'],
  },
  deleted: {
    properties: { payload_placement: { type: 'string', const: 'none' }, replaces: def('replaces_non_empty') },
    required: ['replaces'],
  },
};

function abstractSchemas(stage: Stage): SchemaObject[] {
  const abstractId = abstractSchemaId(stage, 'resource_data');
  const abstract: SchemaObject = {
    $schema: JSON_SCHEMA_DIALECT,
    $id: abstractId,
    title: `abstract_resource_data (${stage})`,
    description: 'Fields common to every resource data description document; open to other keys',
    type: 'object',
    properties: stageProperties(stage),
    patternProperties: EXTENSION_KEYS,
    required: baseRequired(stage),
  };
  const placed = (['inline', 'linked', 'attachment'] as const).map((kind): SchemaObject => ({
    $schema: JSON_SCHEMA_DIALECT,
    $id: abstractSchemaId(stage, kind),
    title: `abstract_${kind}_resource_data (${stage})`,
    type: 'object',
    allOf: [{ $ref: abstractId }],
    // Required names not narrowed here are typed by the abstract schema ({} = no extra rule).
    properties: {
      ...Object.fromEntries(PLACEMENT_RULES[kind].required.map((name) => [name, {}])),
      ...PLACEMENT_RULES[kind].properties,
    },
    required: PLACEMENT_RULES[kind].required,
  }));
  return [abstract, ...placed];
}

function versionSchema(stage: Stage, version: DocVersion, placement: Placement): SchemaObject {
  const rules = PLACEMENT_RULES[placement];
  const properties: Record<string, SchemaObject> = { ...stageProperties(stage), ...rules.properties };
  let required = [...baseRequired(stage), ...rules.required];

  if (placement === 'deleted') {
    // The resource may no longer exist: no locator, payload schema or data type needed.
    properties.resource_locator = def('resource_locator');
    required = required.filter((name) => name !== 'resource_data_type');
  } else {
    properties.resource_locator = def(version === '0.23.0' ? 'resource_locator_single' : 'resource_locator_multi');
    required.push('resource_locator');
    if (version !== '0.23.0') properties.replaces = def('replaces');
  }
  if (version === '0.51.0' && placement === 'inline') properties.resource_data = str;
  properties.doc_version = { type: 'string', const: version };

  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: versionSchemaId(stage, version, placement),
    title: `resource_data ${version} ${placement} (${stage})`,
    type: 'object',
    properties,
    patternProperties: EXTENSION_KEYS,
    additionalProperties: false,
    required: [...new Set(required)],
  };
}

function unionSchemas(stage: Stage): SchemaObject[] {
  const perVersion = SUPPORTED_DOC_VERSIONS.map((version): SchemaObject => ({
    $schema: JSON_SCHEMA_DIALECT,
    $id: versionUnionSchemaId(stage, version),
    title: `resource_data ${version}, any placement (${stage})`,
    anyOf: PLACEMENTS_BY_VERSION[version].map((placement) => ({ $ref: versionSchemaId(stage, version, placement) })),
  }));
  const any: SchemaObject = {
    $schema: JSON_SCHEMA_DIALECT,
    $id: anyVersionSchemaId(stage),
    title: `resource_data, any supported version (${stage})`,
    anyOf: SUPPORTED_DOC_VERSIONS.map((version) => ({ $ref: versionUnionSchemaId(stage, version) })),
  };
  return [...perVersion, any];
}

/** Every resource data schema (defs, abstract, per version and placement, unions), both stages. */
export function buildResourceDataSchemas(): SchemaObject[] {
  const schemas: SchemaObject[] = [resourceDataDefsSchema];
  for (const stage of STAGES) {
    schemas.push(...abstractSchemas(stage));
    for (const version of SUPPORTED_DOC_VERSIONS) {
      for (const placement of PLACEMENTS_BY_VERSION[version]) schemas.push(versionSchema(stage, version, placement));
    }
    schemas.push(...unionSchemas(stage));
  }
  return schemas;
}
