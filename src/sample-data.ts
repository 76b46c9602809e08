/**
 * `npm start -- --sample-data`: publishes the NSDL sample corpus (100 real Learning Registry
 * documents, samples/, the same NSDL corpus as test/fixtures/corpus) through the publish service, so a newcomer sees data at
 * once. A _local marker makes the flag safe to give at every start.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunningNode } from './runtime.js';
import { PROJECT_ROOT } from './runtime.js';

// Package data (samples/), not the tests' fixtures: a published package or an image has no tests.
export const SAMPLE_CORPUS = path.join(PROJECT_ROOT, 'samples', 'nsdl_dc-100docs.json');
const MARKER = 'sample_data_loaded';

/** `refused` and `first_refusal`: what the node's policy refused (logged as a warning by `start`). */
export interface SampleDataOutcome { published: number; refused: number; skipped: boolean; first_refusal?: string }

export async function loadSampleData(node: RunningNode): Promise<SampleDataOutcome> {
  if (await node.deps.resources.hasMarker(MARKER)) return { published: 0, refused: 0, skipped: true };
  const body = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Record<string, unknown>[] };
  const results = (await node.deps.publish.publish(body, undefined, undefined)).document_results;
  const published = results.filter((r) => r.OK).length;
  const refusals = results.filter((r) => !r.OK);
  // Marked as loaded only once something is: a policy that refused every document (the NSDL
  // samples' signatures sign an empty text, so verify_signatures refuses them all) leaves the
  // samples for a later start with another policy.
  if (published > 0) await node.deps.resources.setMarker(MARKER, { loaded: new Date().toISOString() });
  return { published, refused: refusals.length, skipped: false, ...(refusals[0]?.error ? { first_refusal: refusals[0].error } : {}) };
}
