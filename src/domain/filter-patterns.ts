/**
 * The regular expressions of the node filter's rules, compiled as the filter compiles them
 * (design-docs/resource_data/distribute/filters/live_for_destination.js, which CouchDB runs for
 * replication and src/domain/filters.ts at publish and inbound): filter_key within `^(?:…)$`, so
 * it matches a whole key name or dotted path, and filter_value as it is, unless absent. That
 * function took a pattern it cannot compile for one that matches nothing, which made every
 * document "rejected by filter" (or, excluding, let every one through) without a word, and now
 * passes no document: CONFIG refuses such a pattern (src/config/node-config.ts), the filter
 * refuses to run with one edited into the node database (filters.ts), /destination refuses to
 * serve it, and a source refuses a destination that serves one. The rule is the filter's, so it
 * lives beside it.
 */
export interface FilterRuleText { filter_key?: unknown; filter_value?: unknown }

export interface FilterPatternProblem {
  index: number;
  field: 'filter_key' | 'filter_value';
  pattern: string;
  /** The RegExp's own message, e.g. "Invalid regular expression: /(/: Unterminated group". */
  reason: string;
}

function compileError(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The first pattern of `rules` the filter could not compile, or undefined. */
export function filterPatternProblem(rules: readonly FilterRuleText[]): FilterPatternProblem | undefined {
  for (const [index, rule] of rules.entries()) {
    // String concatenation, as the filter does it: a key pattern is whatever `+` makes of it.
    const key = compileError('^(?:' + String(rule.filter_key) + ')$');
    if (key) return { index, field: 'filter_key', pattern: String(rule.filter_key), reason: key };
    if (rule.filter_value === undefined || rule.filter_value === null) continue;
    const value = compileError(String(rule.filter_value));
    if (value) return { index, field: 'filter_value', pattern: String(rule.filter_value), reason: value };
  }
  return undefined;
}
