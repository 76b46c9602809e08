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

export async function loadSampleData(node: RunningNode): Promise<{ published: number; skipped: boolean }> {
  if (await node.deps.resources.hasMarker(MARKER)) return { published: 0, skipped: true };
  const body = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Record<string, unknown>[] };
  const result = await node.deps.publish.publish(body, undefined, undefined);
  await node.deps.resources.setMarker(MARKER, { loaded: new Date().toISOString() });
  return { published: result.document_results.filter((r) => r.OK).length, skipped: false };
}
