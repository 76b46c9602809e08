/**
 * The node filter description (spec "Node filter description": active filters), applied to each
 * published or inbound document. The rules are evaluated by the very function that filtered
 * replication runs in CouchDB (design-docs/resource_data/distribute/filters/live_for_destination.js),
 * compiled once in a node:vm context, so publish, inbound and replication cannot disagree.
 */
import vm from 'node:vm';
import path from 'node:path';
import { readFunctionSource } from '../storage/design-docs.js';

export interface FilterDescription {
  active?: boolean;
  custom_filter?: boolean;
  include_exclude?: boolean;
  filter?: { filter_key: string; filter_value?: string }[];
}

type FilterFunction = (doc: unknown, req: { query: { filter_description?: string } }) => boolean;

export type DocumentFilter = (doc: Record<string, unknown>, description: FilterDescription | undefined) => boolean;

export function compileDistributionFilter(designDocsRoot: string): DocumentFilter {
  const source = readFunctionSource(path.join(designDocsRoot, 'resource_data', 'distribute', 'filters', 'live_for_destination.js'));
  const filter = vm.runInNewContext(`(${source})`, {}, { timeout: 1000 }) as FilterFunction;
  return (doc, description) => {
    if (!description || description.active === false || !description.filter?.length) return true;
    // The JSON round trip gives the function plain objects of its own context, as CouchDB would.
    return filter(JSON.parse(JSON.stringify(doc)) as unknown, { query: { filter_description: JSON.stringify(description) } }) === true;
  };
}
