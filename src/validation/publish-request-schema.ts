/**
 * JSON Schema (draft 2020-12) of the body of `POST /publish`: `{documents: [object, ...]}`
 * with at least one document.
 *
 * Only the request's shape is checked here (a failure is a global publish error). Each
 * document is validated on its own afterwards, so one bad document gives a per-document
 * result, not a global failure. Other top-level keys are not rejected.
 */
import type { SchemaObject } from 'ajv/dist/2020.js';
import { JSON_SCHEMA_DIALECT } from './resource-data-schema-ids.js';

export const PUBLISH_REQUEST_SCHEMA_ID = 'https://lr-node.invalid/schema/publish/request.json';

export const publishRequestSchema: SchemaObject = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: PUBLISH_REQUEST_SCHEMA_ID,
  title: 'Basic Publish request',
  type: 'object',
  properties: {
    documents: {
      description: 'resource data description documents to publish, in order',
      type: 'array',
      minItems: 1,
      items: { type: 'object' },
    },
  },
  required: ['documents'],
};
