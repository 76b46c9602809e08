/**
 * Crosswalks to oai_dc from JSON payloads and from the envelope itself.
 *
 * - LRMI / schema.org: JSON-LD (`@context` schema.org) or the microdata JSON the Learning
 *   Registry corpora hold (`{items: [{type, properties}]}`); the schema.org properties that
 *   correspond to DC elements (LRMI 1.1 and DCMI's schema.org alignment).
 * - Envelope: a minimal record from the resource data description document itself, for any
 *   other payload (issue 13: resource_locator, keys, identity, resource_data_type, node_timestamp).
 */
import { addValues, type DcElement, type DcRecord } from './oai-dc.js';
import { isRecord } from '../../../domain/is-record.js';

const SCHEMA_ORG: Record<string, DcElement> = {
  name: 'title', headline: 'title', description: 'description', about: 'subject', keywords: 'subject', educationalAlignment: 'subject',
  author: 'creator', creator: 'creator', contributor: 'contributor', publisher: 'publisher', provider: 'publisher',
  dateCreated: 'date', datePublished: 'date', dateModified: 'date', learningResourceType: 'type', encodingFormat: 'format',
  fileFormat: 'format', url: 'identifier', identifier: 'identifier', inLanguage: 'language', isBasedOnUrl: 'source', license: 'rights',
  copyrightHolder: 'rights', isPartOf: 'relation', spatialCoverage: 'coverage', temporalCoverage: 'coverage',
};

/** Text values of a property: strings, numbers, and the name/url of nested things. */
function texts(value: unknown, depth = 0): string[] {
  if (depth > 4) return [];
  if (typeof value === 'string' || typeof value === 'number') return [String(value)];
  if (Array.isArray(value)) return value.flatMap((v) => texts(v, depth + 1));
  if (!isRecord(value)) return [];
  const properties = isRecord(value.properties) ? value.properties : value;
  for (const key of ['name', 'targetName', 'url', '@value', '@id']) if (properties[key] !== undefined) return texts(properties[key], depth + 1);
  return [];
}

/** The schema.org things of a payload: JSON-LD objects (also in @graph) or microdata items. */
function things(payload: unknown): Record<string, unknown>[] {
  if (Array.isArray(payload)) return payload.flatMap(things);
  if (!isRecord(payload)) return [];
  if (Array.isArray(payload.items)) return payload.items.filter(isRecord).map((item) => (isRecord(item.properties) ? item.properties : item));
  if (Array.isArray(payload['@graph'])) return payload['@graph'].filter(isRecord);
  const context = JSON.stringify(payload['@context'] ?? '');
  return /schema\.org/i.test(context) ? [payload] : [];
}

export function dcFromLrmi(payload: unknown): DcRecord | undefined {
  const found = things(payload);
  if (found.length === 0) return undefined;
  const record: DcRecord = {};
  for (const thing of found) {
    for (const [property, element] of Object.entries(SCHEMA_ORG)) if (thing[property] !== undefined) addValues(record, element, texts(thing[property]));
  }
  return record;
}

/** The minimal record every live document has. */
export function dcFromEnvelope(doc: Record<string, unknown>): DcRecord {
  const record: DcRecord = {};
  const identity = isRecord(doc.identity) ? doc.identity : {};
  // A 0.49.0 document may give several locators (an array): each is an identifier.
  addValues(record, 'identifier', [doc.resource_locator].flat());
  addValues(record, 'subject', Array.isArray(doc.keys) ? doc.keys : []);
  addValues(record, 'publisher', [identity.owner, identity.curator]);
  addValues(record, 'contributor', [identity.submitter, identity.signer]);
  addValues(record, 'type', [doc.resource_data_type]);
  addValues(record, 'date', [typeof doc.node_timestamp === 'string' ? doc.node_timestamp.slice(0, 10) : undefined]);
  return record;
}
