/**
 * Validation of resource data description documents ("envelopes") and of the publish
 * request body, against the schemas in resource-data-schemas.ts and publish-request-schema.ts.
 *
 * `createEnvelopeValidator()` builds one ajv instance and compiles every schema once;
 * keep the returned validator and reuse it (it holds no per-call state).
 *
 * A document is checked in this order, and the first problem found is reported:
 * 1. it is a JSON object;
 * 2. `doc_type` is `resource_data`;
 * 3. `doc_version` is a supported version (0.23.0, 0.49.0, 0.51.0);
 * 4. `payload_placement` selects the version's schema: `inline`, `linked`,
 *    `attachment`/`attached`, or `none` (deletion, 0.49.0 and later). A document without
 *    `payload_placement` but with `replaces` is taken as a deletion document, as the
 *    original union schemas allowed;
 * 5. the selected schema (all its errors are reported, at most five).
 *
 * Error strings are single lines, e.g.
 * `doc_version 0.49.0: /identity must have required property 'submitter'`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { formatAjvErrors, describeValue } from './format-errors.js';
import { isLrDateTime, LR_DATE_TIME_FORMAT } from './lr-date-time.js';
import { PUBLISH_REQUEST_SCHEMA_ID, publishRequestSchema } from './publish-request-schema.js';
import { buildResourceDataSchemas } from './resource-data-schemas.js';
import {
  isSupportedDocVersion,
  PLACEMENTS_BY_VERSION,
  STAGES,
  SUPPORTED_DOC_VERSIONS,
  versionSchemaId,
  type DocVersion,
  type Placement,
  type Stage,
} from './resource-data-schema-ids.js';
import { isRecord } from '../domain/is-record.js';

export type ValidationResult = { ok: true } | { ok: false; error: string };

export interface EnvelopeValidator {
  /** The `doc_version` values accepted. */
  readonly supportedVersions: readonly DocVersion[];
  /**
   * A document as a client submits it to publish: the node-assigned fields (`doc_ID`,
   * `publishing_node`, `node_timestamp`, `create_timestamp`, `update_timestamp`) may be
   * absent; CouchDB members (`_id`, `_rev`, ...) are not allowed.
   */
  validate(doc: unknown): ValidationResult;
  /**
   * A document as stored at a node or received through distribution: the node-assigned
   * fields are required (as in the original Learning Registry schemas) and CouchDB members
   * (`_id`, `_rev`, `_attachments`, ...) are allowed.
   */
  validateStored(doc: unknown): ValidationResult;
  /** The body of `POST /publish`: `{documents: [object, ...]}`, non-empty. */
  validatePublishRequest(body: unknown): ValidationResult;
  /**
   * Validates against one schema by id (ids from resource-data-schema-ids.ts, optionally with a
   * JSON Pointer fragment such as `#/$defs/identity`). Unknown ids give an error result.
   */
  validateAgainst(schemaId: string, data: unknown): ValidationResult;
}

const OK: ValidationResult = Object.freeze({ ok: true });
const fail = (error: string): ValidationResult => ({ ok: false, error });

const SUPPORTED_LIST = SUPPORTED_DOC_VERSIONS.join(', ');

function placementValues(version: DocVersion): string {
  const values = PLACEMENTS_BY_VERSION[version].map((placement) => (placement === 'deleted' ? 'none' : placement));
  return values.map((value) => `'${value}'`).join(', ');
}

type Selection = { placement: Placement } | { error: string };

/** Which version schema a document's `payload_placement` selects, or an error. */
function selectPlacement(version: DocVersion, doc: Record<string, unknown>): Selection {
  const hasDeletion = PLACEMENTS_BY_VERSION[version].includes('deleted');
  const value = doc.payload_placement;
  if (value === undefined) {
    if (hasDeletion && 'replaces' in doc) return { placement: 'deleted' };
    return { error: `must have required property 'payload_placement' (one of ${placementValues(version)})` };
  }
  switch (value) {
    case 'inline':
      return { placement: 'inline' };
    case 'linked':
      return { placement: 'linked' };
    case 'attachment':
    case 'attached':
      return { placement: 'attachment' };
    case 'none':
      if (hasDeletion) return { placement: 'deleted' };
      return {
        error: `/payload_placement 'none' (deletion document) is not supported by this version; deletion needs doc_version 0.49.0 or later`,
      };
    default:
      return { error: `/payload_placement must be one of ${placementValues(version)} (got ${describeValue(value)})` };
  }
}

export function createEnvelopeValidator(): EnvelopeValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addFormat(LR_DATE_TIME_FORMAT, { type: 'string', validate: isLrDateTime });
  const schemas = [...buildResourceDataSchemas(), publishRequestSchema];
  ajv.addSchema(schemas);

  const compiled = (id: string): ValidateFunction => {
    const fn = ajv.getSchema(id);
    if (!fn) throw new Error(`envelope validator: schema ${id} is not registered`);
    return fn;
  };

  // Compile every schema up front, once (a broken schema fails here, not on first use).
  for (const schema of schemas) compiled(String(schema.$id));
  const documentValidators = new Map<string, ValidateFunction>();
  for (const stage of STAGES) {
    for (const version of SUPPORTED_DOC_VERSIONS) {
      for (const placement of PLACEMENTS_BY_VERSION[version]) {
        const id = versionSchemaId(stage, version, placement);
        documentValidators.set(id, compiled(id));
      }
    }
  }
  const publishRequest = compiled(PUBLISH_REQUEST_SCHEMA_ID);

  function validateDocument(stage: Stage, doc: unknown): ValidationResult {
    if (!isRecord(doc)) return fail(`document must be a JSON object (got ${describeValue(doc)})`);

    if (doc.doc_type === undefined) return fail(`must have required property 'doc_type' (value 'resource_data')`);
    if (doc.doc_type !== 'resource_data') {
      return fail(`/doc_type must be 'resource_data' (got ${describeValue(doc.doc_type)})`);
    }

    const version = doc.doc_version;
    if (version === undefined) {
      return fail(`must have required property 'doc_version' (supported versions: ${SUPPORTED_LIST})`);
    }
    if (!isSupportedDocVersion(version)) {
      return fail(`unsupported doc_version ${describeValue(version)}; supported versions: ${SUPPORTED_LIST}`);
    }

    const prefix = `doc_version ${version}: `;
    const selection = selectPlacement(version, doc);
    if ('error' in selection) return fail(prefix + selection.error);

    const check = documentValidators.get(versionSchemaId(stage, version, selection.placement));
    if (!check) return fail(`${prefix}no schema for payload placement '${selection.placement}'`);
    return check(doc) ? OK : fail(prefix + formatAjvErrors(check.errors, doc));
  }

  return {
    supportedVersions: SUPPORTED_DOC_VERSIONS,
    validate: (doc) => validateDocument('submitted', doc),
    validateStored: (doc) => validateDocument('stored', doc),
    validatePublishRequest(body) {
      return publishRequest(body) ? OK : fail(`publish request: ${formatAjvErrors(publishRequest.errors, body)}`);
    },
    validateAgainst(schemaId, data) {
      let check: ValidateFunction | undefined;
      try {
        check = ajv.getSchema(schemaId);
      } catch (error) {
        return fail(`cannot use schema '${schemaId}': ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!check) return fail(`unknown schema '${schemaId}'`);
      return check(data) ? OK : fail(formatAjvErrors(check.errors, data));
    },
  };
}
