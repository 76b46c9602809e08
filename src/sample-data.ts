/**
 * `npm start -- --sample-data`: publishes the NSDL sample corpus (100 real Learning Registry
 * documents, samples/, the same NSDL corpus as test/fixtures/corpus) through the publish service, so a newcomer sees data at
 * once. A _local marker makes the flag safe to give at every start, and each sample's stable
 * doc_ID makes a start that stopped while loading store only the rest at the next.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunningNode } from './runtime.js';
import { PROJECT_ROOT } from './runtime.js';

// Package data (samples/), not the tests' fixtures: a published package or an image has no tests.
export const SAMPLE_CORPUS = path.join(PROJECT_ROOT, 'samples', 'nsdl_dc-100docs.json');
const MARKER = 'sample_data_loaded';

/**
 * `refused` and `first_refusal`: what the node's policy refused (logged as a warning by `start`);
 * `already_stored`: samples an earlier start stored before it stopped, not published again.
 */
export interface SampleDataOutcome { published: number; refused: number; skipped: boolean; already_stored?: number; first_refusal?: string }

/**
 * A sample's doc_ID, by its place in the corpus. The corpus documents name none, and one the node
 * made up would differ at every attempt: a start that stopped after storing the samples and before
 * its marker stored all 100 again at the next start. A URN, so OAI-PMH harvesters take it as the
 * URI it is; the same on every node, so nodes that distribute to each other hold one copy.
 */
export const sampleDocId = (index: number): string => `urn:lr-node:sample-data:${String(index + 1).padStart(3, '0')}`;

export async function loadSampleData(node: RunningNode): Promise<SampleDataOutcome> {
  const { resources, publish } = node.deps;
  if (await resources.hasMarker(MARKER)) return { published: 0, refused: 0, skipped: true };
  const body = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Record<string, unknown>[] };
  const samples = body.documents.map((doc, index) => ({ ...doc, doc_ID: sampleDocId(index) }));
  const stored = await resources.getMany(samples.map((doc) => doc.doc_ID));
  const missing = samples.filter((doc) => !stored.has(doc.doc_ID));
  const results = missing.length > 0 ? (await publish.publish({ documents: missing }, undefined, undefined)).document_results : [];
  const published = results.filter((r) => r.OK).length;
  const refusals = results.filter((r) => !r.OK);
  // Marked as loaded only once something is: a policy that refused every document (the NSDL
  // samples' signatures sign an empty text, so verify_signatures refuses them all) leaves the
  // samples for a later start with another policy.
  if (published + stored.size > 0) await resources.setMarker(MARKER, { loaded: new Date().toISOString() });
  return {
    published, refused: refusals.length, skipped: false,
    ...(stored.size > 0 ? { already_stored: stored.size } : {}),
    ...(refusals[0]?.error ? { first_refusal: refusals[0].error } : {}),
  };
}
