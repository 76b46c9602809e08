/**
 * The node filter description (spec "Node filter description": active filters), applied to each
 * published or inbound document. The rules are evaluated by the very function that filtered
 * replication runs in CouchDB (design-docs/resource_data/distribute/filters/live_for_destination.js),
 * compiled once in a node:vm context, so publish, inbound and replication cannot disagree.
 */
import vm from 'node:vm';
import { filterPatternProblem, type FilterRuleText } from './filter-patterns.js';
import { clippedText } from './clipped-text.js';
import { AppError } from '../errors/app-error.js';
import { isRecord } from './is-record.js';

export interface FilterDescription {
  active?: boolean;
  custom_filter?: boolean;
  include_exclude?: boolean;
  filter?: { filter_key: string; filter_value?: string }[];
}

type FilterFunction = (doc: unknown, req: { query: { filter_description?: string } }) => boolean;

/**
 * The part of live_for_destination.js that needs no destination filter, as a Mango selector
 * (CouchDB "Selector Objects"): a resource_data document with no do_not_distribute key and no
 * truthy node_deleted. CouchDB 3 evaluates a replication selector in Erlang, without a round
 * trip per document to the JavaScript query server (10,000 documents: 9–13 s against 43–85 s
 * with the filter function, same run, CouchDB 3.5 with QuickJS). A drift test
 * (test/integration/distribution-selector.test.ts) keeps the two answers equal.
 */
export const LIVE_FOR_DISTRIBUTION_SELECTOR = {
  $or: [
    {
      doc_type: 'resource_data',
      do_not_distribute: { $exists: false },
      // `$type: 'null'`, not `null` inside `$in`: PouchDB's Mango (the embedded store) never matches the latter.
      $or: [{ node_deleted: { $exists: false } }, { node_deleted: { $type: 'null' } }, { node_deleted: { $in: [false, 0, ''] } }],
    },
    // A tombstone that keeps the replacement it superseded (isRelay, src/domain/resource-document.ts).
    { doc_type: 'tombstone', superseded_replacement: { $type: 'object' } },
  ],
} as const;

export type DocumentFilter = (doc: Record<string, unknown>, description: FilterDescription | undefined) => boolean;

/**
 * The first rule of an applied description that the filter function cannot use, in words
 * (`filter[1].filter_value "(" is not a regular expression …`, `filter[0] is not an object`), or
 * undefined. Only the rules the function compiles are checked: none of an inactive or custom
 * filter. A peer's description is parsed JSON: a rule that is no object makes the function pass
 * nothing too (it fails reading the rule), so it is a problem like a pattern that does not
 * compile. Patterns and messages are clipped: a peer chooses them, and they go to /status and the log.
 */
export function filterDescriptionProblem(description: FilterDescription | undefined): string | undefined {
  if (!description || description.active === false || description.custom_filter === true || !Array.isArray(description.filter)) return undefined;
  const rules: unknown[] = description.filter;
  const notObject = rules.findIndex((rule) => !isRecord(rule));
  if (notObject >= 0) return `filter[${notObject}] is not an object with filter_key and filter_value`;
  const problem = filterPatternProblem(rules as FilterRuleText[]);
  if (!problem) return undefined;
  return `filter[${problem.index}].${problem.field} ${clippedText(JSON.stringify(problem.pattern))} is not a regular expression the filter can compile (${clippedText(problem.reason)})`;
}

/**
 * The filter function passes no document while a pattern does not compile (live_for_destination.js
 * says why): with such a rule every document was "rejected by filter", and nothing said why.
 * CONFIG refuses one at start-up; one edited into the node database stops the filter here (and
 * GET /destination, which would hand it to a source), naming the pattern: HTTP 500, logged at
 * error level by the exit that answers it.
 */
export function checkFilterPatterns(description: FilterDescription | undefined): void {
  const problem = filterDescriptionProblem(description);
  if (problem) throw new AppError(500, 'misconfigured', `the node filter description (filter_description) cannot be applied: ${problem}`, true);
}

/** `source`: design-docs/resource_data/distribute/filters/live_for_destination.js, as the store runs it. */
export function compileDistributionFilter(source: string): DocumentFilter {
  const filter = vm.runInNewContext(`(${source})`, {}, { timeout: 1000 }) as FilterFunction;
  // The rules last checked, as JSON: a batch checks its rules once, not once per document.
  let checked: string | undefined;
  return (doc, description) => {
    if (!description || description.active === false || !description.filter?.length) return true;
    if (description.custom_filter !== true) {
      const rules = JSON.stringify(description.filter);
      if (rules !== checked) {
        checkFilterPatterns(description);
        checked = rules;
      }
    }
    // The JSON round trip gives the function plain objects of its own context, as CouchDB would.
    return filter(JSON.parse(JSON.stringify(doc)) as unknown, { query: { filter_description: JSON.stringify(description) } }) === true;
  };
}
