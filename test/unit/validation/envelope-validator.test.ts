import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  createEnvelopeValidator,
  type EnvelopeValidator,
  type ValidationResult,
} from '../../../src/validation/envelope-validator.js';
import { isLrDateTime } from '../../../src/validation/lr-date-time.js';
import {
  abstractSchemaId,
  anyVersionSchemaId,
  NODE_ASSIGNED_FIELDS,
  versionSchemaId,
} from '../../../src/validation/resource-data-schema-ids.js';

type Json = Record<string, unknown>;

const fixtures = new URL('../../fixtures/', import.meta.url);
function loadJson<T>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, fixtures), 'utf8')) as T;
}

/**
 * Test matrices (copied from the Learning Registry schema tests): each group names the original
 * schema; a case's document is `{...default_data, ...data}` (a shallow merge: a case's `identity`
 * replaces the default one as a whole) with the `rm_data` keys then removed. Groups without
 * `default_data` validate `data` itself (used with sub-schemas such as `#properties/identity`).
 */
interface MatrixCase {
  description: string;
  data: unknown;
  rm_data?: string[];
  valid: boolean;
}
interface MatrixGroup {
  description: string;
  schema: { $ref: string };
  default_data?: Json;
  tests: MatrixCase[];
}

const MATRIX_FILES = [
  'abstract_resource_data.json',
  'abstract_inline_resource_data.json',
  'abstract_linked_resource_data.json',
  'v_0_23_resource_data.json',
  'v_0_49_resource_data.json',
  'any_resource_data.json',
];

function caseDocument(group: MatrixGroup, testCase: MatrixCase): unknown {
  if (!group.default_data) return structuredClone(testCase.data);
  const doc: Json = { ...structuredClone(group.default_data), ...structuredClone(testCase.data as Json) };
  for (const key of testCase.rm_data ?? []) delete doc[key];
  return doc;
}

type Check = { label: string; run: (validator: EnvelopeValidator, data: unknown) => ValidationResult };

const schemaCheck = (id: string): Check => ({
  label: `schema ${id.replace(/^.*\/resource_data\//, '')}`,
  run: (validator, data) => validator.validateAgainst(id, data),
});

/** Original schema reference -> what runs the case here (matrix documents are stored documents). */
const CHECKS: Record<string, Check[]> = {
  'file:lr/schema/abstract_resource_data.json': [schemaCheck(abstractSchemaId('stored', 'resource_data'))],
  'file:lr/schema/abstract_resource_data.json#properties/identity': [
    schemaCheck(`${abstractSchemaId('stored', 'resource_data')}#/properties/identity`),
  ],
  'file:lr/schema/abstract_resource_data.json#properties/TOS': [
    schemaCheck(`${abstractSchemaId('stored', 'resource_data')}#/properties/TOS`),
  ],
  'file:lr/schema/abstract_resource_data.json#properties/digital_signature': [
    schemaCheck(`${abstractSchemaId('stored', 'resource_data')}#/properties/digital_signature`),
  ],
  'file:lr/schema/abstract_inline_resource_data.json': [schemaCheck(abstractSchemaId('stored', 'inline'))],
  'file:lr/schema/abstract_linked_resource_data.json': [schemaCheck(abstractSchemaId('stored', 'linked'))],
  'file:lr/schema/v_0_23/inline_resource_data.json': [schemaCheck(versionSchemaId('stored', '0.23.0', 'inline'))],
  'file:lr/schema/v_0_23/linked_resource_data.json': [schemaCheck(versionSchemaId('stored', '0.23.0', 'linked'))],
  'file:lr/schema/v_0_49/inline_resource_data.json': [schemaCheck(versionSchemaId('stored', '0.49.0', 'inline'))],
  'file:lr/schema/v_0_49/linked_resource_data.json': [schemaCheck(versionSchemaId('stored', '0.49.0', 'linked'))],
  'file:lr/schema/v_0_49/deleted_resource_data.json': [schemaCheck(versionSchemaId('stored', '0.49.0', 'deleted'))],
  // "any version": both the validator's own dispatch and the union schema must agree.
  'file:lr/schema/any/resource_data.json': [
    { label: 'validateStored()', run: (validator, data) => validator.validateStored(data) },
    schemaCheck(anyVersionSchemaId('stored')),
  ],
};

function verdict(result: ValidationResult): string {
  return result.ok ? 'valid' : `invalid: ${result.error}`;
}

describe('envelope validator', function () {
  const validator = createEnvelopeValidator();

  describe('test matrices', function () {
    for (const file of MATRIX_FILES) {
      const groups = loadJson<MatrixGroup[]>(`validation/${file}`);
      describe(file, function () {
        groups.forEach((group, groupIndex) => {
          describe(`[${groupIndex}] ${group.description} (${group.schema.$ref.replace('file:lr/schema/', '')})`, function () {
            const checks = CHECKS[group.schema.$ref];
            it('has a schema mapping', function () {
              expect(checks, `no mapping for ${group.schema.$ref}`).to.be.an('array').that.is.not.empty;
            });
            group.tests.forEach((testCase, caseIndex) => {
              const expected = testCase.valid ? 'valid' : 'invalid';
              it(`#${caseIndex} ${testCase.description} -> ${expected}`, function () {
                const doc = caseDocument(group, testCase);
                for (const check of checks ?? []) {
                  const result = check.run(validator, doc);
                  expect(result.ok, `${check.label}: expected ${expected}, got ${verdict(result)}`).to.equal(testCase.valid);
                }
              });
            });
          });
        });
      });
    }
  });

  // Some matrix cases fail for more than the reason they name (see the report); these isolate it.
  describe('matrix cases, isolated', function () {
    const groupOf = (file: string, index: number): MatrixGroup => {
      const group = loadJson<MatrixGroup[]>(`validation/${file}`)[index];
      if (!group) throw new Error(`no group ${index} in ${file}`);
      return group;
    };
    const without = (doc: Json, ...keys: string[]): Json => {
      const copy = structuredClone(doc);
      for (const key of keys) delete copy[key];
      return copy;
    };

    it('abstract inline: only payload_schema missing is invalid', function () {
      const doc = { ...groupOf('abstract_inline_resource_data.json', 0).default_data, payload_placement: 'inline', resource_data: {} };
      const id = abstractSchemaId('stored', 'inline');
      expect(validator.validateAgainst(id, doc)).to.deep.equal({ ok: true });
      expect(validator.validateAgainst(id, without(doc, 'payload_schema'))).to.deep.equal({
        ok: false,
        error: "must have required property 'payload_schema'",
      });
    });

    it('abstract linked: only payload_schema missing is invalid', function () {
      const doc = { ...groupOf('abstract_linked_resource_data.json', 0).default_data, payload_placement: 'linked', payload_locator: 'x' };
      const id = abstractSchemaId('stored', 'linked');
      expect(validator.validateAgainst(id, doc)).to.deep.equal({ ok: true });
      expect(validator.validateAgainst(id, without(doc, 'payload_schema'))).to.deep.equal({
        ok: false,
        error: "must have required property 'payload_schema'",
      });
    });

    it('0.23.0 linked: only resource_locator missing is invalid', function () {
      const doc = { ...groupOf('v_0_23_resource_data.json', 0).default_data, doc_version: '0.23.0' };
      expect(validator.validateStored(doc)).to.deep.equal({ ok: true });
      expect(validator.validateStored(without(doc, 'resource_locator'))).to.deep.equal({
        ok: false,
        error: "doc_version 0.23.0: must have required property 'resource_locator'",
      });
    });

    it('0.49.0 linked and inline: an empty replaces is valid', function () {
      for (const [file, index] of [['v_0_49_resource_data.json', 1], ['v_0_49_resource_data.json', 2]] as const) {
        const doc = { ...groupOf(file, index).default_data, replaces: [] };
        expect(validator.validateStored(doc), `${file} [${index}]`).to.deep.equal({ ok: true });
      }
    });
  });

  describe('corpus nsdl_dc-100docs.json (publish body, doc_version 0.23.0)', function () {
    const body = loadJson<{ documents: Json[] }>('corpus/nsdl_dc-100docs.json');

    it('has 100 documents and is a valid publish request', function () {
      expect(body.documents).to.have.length(100);
      expect(validator.validatePublishRequest(body)).to.deep.equal({ ok: true });
    });

    body.documents.forEach((doc, index) => {
      it(`document ${index} (${String(doc.resource_locator)}) validates as submitted`, function () {
        const result = validator.validate(doc);
        expect(result.ok, verdict(result)).to.equal(true);
      });
    });
  });

  describe('sample documents', function () {
    it('corpus/paradata-0.json validates as submitted', function () {
      const result = validator.validate(loadJson('corpus/paradata-0.json'));
      expect(result.ok, verdict(result)).to.equal(true);
    });

    it('documents/nsdl_dc-publish-3docs.json: request and each document validate', function () {
      const body = loadJson<{ documents: Json[] }>('documents/nsdl_dc-publish-3docs.json');
      expect(validator.validatePublishRequest(body)).to.deep.equal({ ok: true });
      expect(body.documents).to.have.length(3);
      for (const doc of body.documents) {
        const result = validator.validate(doc);
        expect(result.ok, verdict(result)).to.equal(true);
      }
    });

    it('documents/replacement-chain-with-delete-0.49.json: original, replacement and deletion validate', function () {
      const { documents } = loadJson<{ documents: Json[] }>('documents/replacement-chain-with-delete-0.49.json');
      expect(documents).to.have.length(3);
      expect(documents[2]?.payload_placement).to.equal('none');
      expect(documents[2]).to.not.have.any.keys('resource_locator', 'payload_schema', 'resource_data');
      for (const doc of documents) {
        const result = validator.validate(doc);
        expect(result.ok, `${String(doc.doc_ID)}: ${verdict(result)}`).to.equal(true);
      }
      expect(validator.validatePublishRequest({ documents })).to.deep.equal({ ok: true });
    });

    for (const path of [
      'documents/rd3-nsdl_dc-as-stored.json',
      'signatures/rd3-lr-paradata-1.0-as-stored-signed.json',
      'signatures/rd3-lr-paradata-with-numbers-signed-0.49.json',
      'signatures/rd3-lrmi-microdata-json-signed-inbloom.json',
    ]) {
      it(`${path} validates as stored`, function () {
        const result = validator.validateStored(loadJson(path));
        expect(result.ok, verdict(result)).to.equal(true);
      });
    }

    it('documents/tombstone-example.json is not a resource_data document', function () {
      const { tombstone } = loadJson<{ tombstone: Json }>('documents/tombstone-example.json');
      expect(validator.validateStored(tombstone)).to.deep.equal({
        ok: false,
        error: "/doc_type must be 'resource_data' (got 'tombstone')",
      });
    });
  });

  describe('submitted and stored documents', function () {
    const submitted = (): Json => structuredClone(loadJson<Json>('corpus/paradata-0.json'));
    const stamped = (): Json => ({
      ...submitted(),
      doc_ID: 'abc123',
      publishing_node: 'node-1',
      node_timestamp: '2013-01-23T12:00:00.123456Z',
      create_timestamp: '2013-01-23T12:00:00.123456Z',
      update_timestamp: '2013-01-23T12:00:00.123456Z',
    });

    it('a stored document needs the node-assigned fields', function () {
      const doc = submitted();
      for (const field of NODE_ASSIGNED_FIELDS) delete doc[field];
      expect(validator.validateStored(doc)).to.deep.equal({
        ok: false,
        error:
          "doc_version 0.23.0: must have required properties 'doc_ID', 'publishing_node', 'node_timestamp', 'create_timestamp', 'update_timestamp'",
      });
      expect(validator.validateStored(stamped())).to.deep.equal({ ok: true });
      expect(validator.validate(stamped())).to.deep.equal({ ok: true });
    });

    it('node-assigned fields are still checked when submitted', function () {
      const result = validator.validate({ ...submitted(), node_timestamp: '2013-01-23 12:00:00', doc_ID: 7 });
      expect(result.ok).to.equal(false);
      expect(!result.ok && result.error).to.equal(
        "doc_version 0.23.0: /doc_ID must be string (got 7); /node_timestamp must be a UTC date-time like 2013-01-23T12:00:00Z or 2013-01-23T12:00:00.123456Z (got '2013-01-23 12:00:00')",
      );
    });

    it('CouchDB members are allowed only on stored documents', function () {
      const doc = { ...stamped(), _id: 'abc123', _rev: '1-abc' };
      expect(validator.validateStored(doc)).to.deep.equal({ ok: true });
      expect(validator.validate(doc)).to.deep.equal({
        ok: false,
        error: "doc_version 0.23.0: must NOT have additional property '_id'; must NOT have additional property '_rev'",
      });
    });

    it('does not modify the document', function () {
      const doc = submitted();
      const before = structuredClone(doc);
      validator.validate(doc);
      validator.validateStored(doc);
      expect(doc).to.deep.equal(before);
    });
  });

  describe('versions and placements', function () {
    const base = (version: string, extra: Json = {}): Json => ({
      doc_type: 'resource_data',
      doc_version: version,
      active: true,
      resource_data_type: 'metadata',
      identity: { submitter_type: 'agent', submitter: 'tester' },
      TOS: { submission_TOS: 'http://example.com/tos' },
      resource_locator: 'http://example.com/resource',
      payload_placement: 'inline',
      payload_schema: ['nsdl_dc'],
      resource_data: '<xml/>',
      ...extra,
    });
    const deletion = (version: string, extra: Json = {}): Json => ({
      doc_type: 'resource_data',
      doc_version: version,
      active: true,
      identity: { submitter_type: 'agent', submitter: 'tester' },
      TOS: { submission_TOS: 'http://example.com/tos' },
      payload_placement: 'none',
      replaces: ['old-doc'],
      ...extra,
    });
    const errorOf = (result: ValidationResult): string => (result.ok ? '(valid)' : result.error);

    it('accepts inline documents of every supported version', function () {
      expect(validator.supportedVersions).to.deep.equal(['0.23.0', '0.49.0', '0.51.0']);
      for (const version of validator.supportedVersions) {
        expect(validator.validate(base(version)), version).to.deep.equal({ ok: true });
      }
    });

    it('names the supported versions for an unknown or missing doc_version', function () {
      expect(validator.validate(base('0.50.0'))).to.deep.equal({
        ok: false,
        error: "unsupported doc_version '0.50.0'; supported versions: 0.23.0, 0.49.0, 0.51.0",
      });
      expect(validator.validate(base('0.49.0', { doc_version: 49 }))).to.deep.equal({
        ok: false,
        error: 'unsupported doc_version 49; supported versions: 0.23.0, 0.49.0, 0.51.0',
      });
      const doc = base('0.49.0');
      delete doc.doc_version;
      expect(validator.validate(doc)).to.deep.equal({
        ok: false,
        error: "must have required property 'doc_version' (supported versions: 0.23.0, 0.49.0, 0.51.0)",
      });
    });

    it('reports a missing nested property with its path', function () {
      const result = validator.validate(base('0.49.0', { identity: { submitter_type: 'agent' } }));
      expect(result).to.deep.equal({
        ok: false,
        error: "doc_version 0.49.0: /identity must have required property 'submitter'",
      });
    });

    it('rejects non-objects and wrong doc_type with a one-line message', function () {
      expect(validator.validate(null)).to.deep.equal({ ok: false, error: 'document must be a JSON object (got null)' });
      expect(validator.validate([base('0.49.0')])).to.deep.equal({
        ok: false,
        error: 'document must be a JSON object (got an array)',
      });
      expect(validator.validate(base('0.49.0', { doc_type: 'service_description' }))).to.deep.equal({
        ok: false,
        error: "/doc_type must be 'resource_data' (got 'service_description')",
      });
      const doc = base('0.49.0');
      delete doc.doc_type;
      expect(errorOf(validator.validate(doc))).to.equal("must have required property 'doc_type' (value 'resource_data')");
    });

    it('lists the allowed payload_placement values', function () {
      expect(errorOf(validator.validate(base('0.49.0', { payload_placement: 'hung' })))).to.equal(
        "doc_version 0.49.0: /payload_placement must be one of 'inline', 'linked', 'attachment', 'none' (got 'hung')",
      );
      const doc = base('0.23.0');
      delete doc.payload_placement;
      expect(errorOf(validator.validate(doc))).to.equal(
        "doc_version 0.23.0: must have required property 'payload_placement' (one of 'inline', 'linked', 'attachment')",
      );
    });

    it('a doc_ID or resource locator longer than obtain looks up (8192 characters) is refused, at publish and as stored', function () {
      // Such a document was stored and could never be obtained by ID (an audit's finding, session 34).
      const long = 'x'.repeat(8193);
      expect(validator.validate(base('0.49.0', { doc_ID: 'x'.repeat(8192), resource_locator: ['y'.repeat(8192)] }))).to.deep.equal({ ok: true });
      expect(errorOf(validator.validate(base('0.49.0', { doc_ID: long })))).to.equal('doc_version 0.49.0: /doc_ID must NOT have more than 8192 characters');
      expect(errorOf(validator.validate(base('0.23.0', { resource_locator: long })))).to.match(/resource_locator must NOT have more than 8192 characters/);
      expect(errorOf(validator.validate(base('0.49.0', { resource_locator: ['http://x/1', long] })))).to.match(/resource_locator(\/1)? must NOT have more than 8192 characters/);
    });

    it('linked documents need payload_locator and no resource_data', function () {
      const linked = base('0.49.0', { payload_placement: 'linked', payload_locator: 'http://example.com/data' });
      delete linked.resource_data;
      expect(validator.validate(linked)).to.deep.equal({ ok: true });
      delete linked.payload_locator;
      expect(errorOf(validator.validate(linked))).to.equal(
        "doc_version 0.49.0: must have required property 'payload_locator'",
      );
      expect(errorOf(validator.validate({ ...linked, payload_locator: 'x', resource_data: 'y' }))).to.equal(
        "doc_version 0.49.0: must NOT have additional property 'resource_data'",
      );
    });

    it('accepts attachment documents (payload_placement attachment or attached)', function () {
      for (const version of validator.supportedVersions) {
        for (const value of ['attachment', 'attached']) {
          const doc = base(version, { payload_placement: value });
          delete doc.resource_data;
          expect(validator.validate(doc), `${version} ${value}`).to.deep.equal({ ok: true });
        }
      }
      const withData = base('0.49.0', { payload_placement: 'attachment' });
      expect(errorOf(validator.validate(withData))).to.equal(
        "doc_version 0.49.0: must NOT have additional property 'resource_data'",
      );
      const stored: Json = {
        ...base('0.51.0', { payload_placement: 'attachment' }),
        doc_ID: 'a',
        publishing_node: 'n',
        node_timestamp: '2013-01-23T12:00:00Z',
        create_timestamp: '2013-01-23T12:00:00Z',
        update_timestamp: '2013-01-23T12:00:00Z',
        _id: 'a',
        _rev: '1-x',
        _attachments: { 'data.xml': { content_type: 'text/xml', stub: true } },
      };
      delete stored.resource_data;
      expect(validator.validateStored(stored)).to.deep.equal({ ok: true });
    });

    it('resource_locator may be an array from 0.49.0 on', function () {
      const locators = ['http://example.com/0', 'http://example.com/1'];
      expect(validator.validate(base('0.49.0', { resource_locator: locators }))).to.deep.equal({ ok: true });
      expect(validator.validate(base('0.51.0', { resource_locator: locators }))).to.deep.equal({ ok: true });
      expect(errorOf(validator.validate(base('0.23.0', { resource_locator: locators })))).to.equal(
        'doc_version 0.23.0: /resource_locator must be string (got an array)',
      );
      expect(validator.validate(base('0.49.0', { resource_locator: [] })).ok).to.equal(false);
    });

    it('replaces exists from 0.49.0 on', function () {
      expect(validator.validate(base('0.49.0', { replaces: ['a', 'b'] }))).to.deep.equal({ ok: true });
      expect(validator.validate(base('0.49.0', { replaces: [] }))).to.deep.equal({ ok: true });
      expect(errorOf(validator.validate(base('0.23.0', { replaces: ['a'] })))).to.equal(
        "doc_version 0.23.0: must NOT have additional property 'replaces'",
      );
    });

    it('0.51.0 inline resource_data must be a string', function () {
      expect(validator.validate(base('0.49.0', { resource_data: { items: [] } }))).to.deep.equal({ ok: true });
      expect(errorOf(validator.validate(base('0.51.0', { resource_data: { items: [] } })))).to.equal(
        'doc_version 0.51.0: /resource_data must be string (got an object)',
      );
    });

    it('deletion documents (payload_placement none) may omit locator, payload schema, data and data type', function () {
      expect(validator.validate(deletion('0.49.0'))).to.deep.equal({ ok: true });
      expect(validator.validate(deletion('0.51.0'))).to.deep.equal({ ok: true });
      expect(
        validator.validate(
          deletion('0.49.0', { resource_locator: 'http://example.com', payload_schema: ['x'], resource_data_type: 'metadata' }),
        ),
      ).to.deep.equal({ ok: true });
      const noPlacement = deletion('0.49.0');
      delete noPlacement.payload_placement;
      expect(validator.validate(noPlacement)).to.deep.equal({ ok: true });
    });

    it('deletion documents need a non-empty replaces and carry no resource data', function () {
      const noReplaces = deletion('0.49.0');
      delete noReplaces.replaces;
      expect(errorOf(validator.validate(noReplaces))).to.equal("doc_version 0.49.0: must have required property 'replaces'");
      expect(errorOf(validator.validate(deletion('0.49.0', { replaces: [] })))).to.equal(
        'doc_version 0.49.0: /replaces must NOT have fewer than 1 items',
      );
      expect(errorOf(validator.validate(deletion('0.49.0', { resource_data: 'x' })))).to.equal(
        "doc_version 0.49.0: must NOT have additional property 'resource_data'",
      );
      expect(errorOf(validator.validate(deletion('0.23.0')))).to.equal(
        "doc_version 0.23.0: /payload_placement 'none' (deletion document) is not supported by this version; deletion needs doc_version 0.49.0 or later",
      );
    });

    it('allows X_ extension keys but no other unknown keys', function () {
      expect(validator.validate(base('0.49.0', { X_local: { anything: [1, 2] } }))).to.deep.equal({ ok: true });
      expect(errorOf(validator.validate(base('0.49.0', { publish_nodes: 'n' })))).to.equal(
        "doc_version 0.49.0: must NOT have additional property 'publish_nodes'",
      );
      // publish_node is the spec's spelling of publishing_node: a known node-assigned field.
      expect(validator.validate(base('0.49.0', { publish_node: 'n' }))).to.deep.equal({ ok: true });
    });

    it('keeps messages short: at most five problems and never a stack', function () {
      const result = validator.validate({
        doc_type: 'resource_data',
        doc_version: '0.49.0',
        payload_placement: 'inline',
        identity: 'me',
        TOS: 1,
        keys: 'a, b',
        weight: 1000,
        resource_TTL: 1.5,
        digital_signature: {},
        resource_data: 'x'.repeat(10_000),
      });
      expect(result.ok).to.equal(false);
      const error = errorOf(result);
      expect(error).to.match(/^doc_version 0\.49\.0: /);
      expect(error).to.match(/; and \d+ more$/);
      expect(error).to.not.include('\n');
      expect(error.length).to.be.below(1000);
    });
  });

  describe('publish request', function () {
    it('needs a non-empty documents array of objects', function () {
      expect(validator.validatePublishRequest({ documents: [{}] })).to.deep.equal({ ok: true });
      expect(validator.validatePublishRequest({ documents: [] })).to.deep.equal({
        ok: false,
        error: 'publish request: /documents must NOT have fewer than 1 items',
      });
      expect(validator.validatePublishRequest({})).to.deep.equal({
        ok: false,
        error: "publish request: must have required property 'documents'",
      });
      expect(validator.validatePublishRequest({ documents: {} })).to.deep.equal({
        ok: false,
        error: 'publish request: /documents must be array (got an object)',
      });
      expect(validator.validatePublishRequest({ documents: [{}, 'doc'] })).to.deep.equal({
        ok: false,
        error: "publish request: /documents/1 must be object (got 'doc')",
      });
      expect(validator.validatePublishRequest([])).to.deep.equal({
        ok: false,
        error: 'publish request: must be object (got an array)',
      });
    });
  });

  describe('validateAgainst', function () {
    it('reports an unknown schema id', function () {
      expect(validator.validateAgainst('https://example.com/nope.json', {})).to.deep.equal({
        ok: false,
        error: "unknown schema 'https://example.com/nope.json'",
      });
    });
  });

  describe('lr-date-time format', function () {
    const valid = ['2013-01-23T12:00:00Z', '2013-02-04T20:16:47.327083Z', '2012-02-29T00:00:00Z', '2000-2-3T23:59:59.1Z'];
    const invalid = [
      '2013-01-23T12-00-00Z',
      '2013-02-31T12:00:00Z',
      '2013-02-29T12:00:00Z',
      '1900-02-29T12:00:00Z',
      '2013-02-28T12:00:00UTC',
      '2013-01-23T12:00:00',
      '2013-01-23T12:00:00+00:00',
      '2013-01-23 12:00:00Z',
      '2013-01-23T24:00:00Z',
      '2013-01-23T12:60:00Z',
      '2013-01-23T12:00:60Z',
      '2013-13-01T12:00:00Z',
      '2013-01-23T12:00:00.1234567Z',
      'October 27, 1972 23:59:59 Zulu',
    ];
    for (const value of valid) it(`accepts ${value}`, () => expect(isLrDateTime(value)).to.equal(true));
    for (const value of invalid) it(`rejects ${value}`, () => expect(isLrDateTime(value)).to.equal(false));
  });
});
