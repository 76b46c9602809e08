/**
 * How deep a parsed JSON value nests. JSON.parse takes any depth, but code that walks a value
 * recursively does not: the canonical hash of LR-PGP.1.0 (signature/canonical-hash.ts) and the
 * embedded store (PouchDB) overflow the stack at about 10,000 levels. Resource documents nest a
 * few levels (spec "Resource data description document"); one that nests deeper than the limit
 * is refused by itself, before it reaches such code.
 */

/** Deepest nesting of arrays and objects a document may have, at /publish and /incoming alike. */
export const MAX_NESTING = 1000;

/** Whether `value` nests arrays and objects deeper than `limit` (iterative: no recursion to overflow). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}
