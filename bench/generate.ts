/**
 * Realistic resource data documents for benchmarks: NSDL DC envelopes shaped like the sample
 * corpus (test/fixtures/corpus), with varied submitters, tags, locators and schemas.
 */
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

/** Document number i of a deterministic corpus (unsigned, no doc_ID: publish assigns it, or give one). */
export function generateDocument(i: number, templates: Doc[], withId = false): Doc {
  const template = templates[i % templates.length] as Doc;
  const keys = Array.isArray(template.keys) ? [...(template.keys as string[])] : [];
  keys.push(`topic-${i % 500}`, `batch-${Math.floor(i / 1000)}`);
  return {
    ...template,
    ...(withId ? { doc_ID: `bench-${i.toString().padStart(7, '0')}` } : {}),
    resource_locator: `http://example.org/resource/${i}`,
    identity: { submitter: SUBMITTERS[i % SUBMITTERS.length], submitter_type: 'agent', curator: `curator-${i % 50}` },
    keys,
  };
}
