/**
 * Realistic resource data documents for benchmarks: NSDL DC envelopes shaped like the sample
 * corpus (test/fixtures/corpus), with varied submitters, tags, locators and schemas.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type Doc = Record<string, unknown>;

const corpusFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'corpus', 'nsdl_dc-100docs.json');
const SUBMITTERS = ['NSDL', 'OER Commons', 'PBS LearningMedia', 'Smithsonian', 'Khan Academy', 'MIT OCW', 'CK-12', 'Illinois Shared Learning'];

export function loadTemplates(): Doc[] {
  const body = JSON.parse(fs.readFileSync(corpusFile, 'utf8')) as { documents: Doc[] };
  return body.documents.map((doc) => {
    const { digital_signature: _s, ...rest } = doc;
    void _s;
    return rest;
  });
}

/**
 * The doc_ID of document number i: a urn:uuid, as the node gives a document published without one
 * (the NSDL corpus has none), so the view keys, which hold it, are as long as a real node's.
 * Deterministic, so a raw load and the node's publish store the same ids.
 */
export function benchDocId(i: number): string {
  const hex = createHash('md5').update(`bench-${i}`).digest('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Document number i of a deterministic corpus (unsigned, no doc_ID: publish assigns it, or give one). */
export function generateDocument(i: number, templates: Doc[], withId = false): Doc {
  const template = templates[i % templates.length] as Doc;
  const keys = Array.isArray(template.keys) ? [...(template.keys as string[])] : [];
  keys.push(`topic-${i % 500}`, `batch-${Math.floor(i / 1000)}`);
  return {
    ...template,
    ...(withId ? { doc_ID: benchDocId(i) } : {}),
    resource_locator: `http://example.org/resource/${i}`,
    identity: { submitter: SUBMITTERS[i % SUBMITTERS.length], submitter_type: 'agent', curator: `curator-${i % 50}` },
    keys,
  };
}
