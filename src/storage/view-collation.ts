/**
 * View keys compared as CouchDB orders them, but only where the answer is certain without ICU.
 *
 * CouchDB collates view keys by type (null, false, true, numbers, strings, arrays, objects) and
 * compares strings with ICU's Unicode Collation Algorithm (CouchDB docs "Views Collation"), where
 * "a" < "B" although JavaScript puts "B" first, and a case difference early in a string yields to a
 * letter difference later on. The node has no ICU of its own, so `compareKeys` answers
 * `undefined` whenever the two orders could disagree; a caller that needs certainty (current-reads.ts)
 * then takes the safe path. What it does answer:
 * - strings whose first difference is digit against digit, digit against letter, or two letters of
 *   the same case (the characters before it are identical, so ICU's primary weights decide there,
 *   and in the same order as code points);
 * - a string that is a prefix of the other, when the next character is printable ASCII (never
 *   ignorable under CouchDB's non-ignorable setting, so the shorter string sorts first in both).
 * Fixed-format timestamps (node_timestamp) and hex id keys always fall in these cases.
 */
export type Order = -1 | 0 | 1;

function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (value === false) return 1;
  if (value === true) return 2;
  if (typeof value === 'number') return 3;
  if (typeof value === 'string') return 4;
  if (Array.isArray(value)) return 5;
  return 6;
}

const DIGIT = /^[0-9]$/;
const LOWER = /^[a-z]$/;
const UPPER = /^[A-Z]$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]$/;
const PRINTABLE_ASCII_TEXT = /^[\x20-\x7e]*$/;

function sameRankingClass(a: string, b: string): boolean {
  if (DIGIT.test(a)) return DIGIT.test(b) || LOWER.test(b) || UPPER.test(b);
  if (DIGIT.test(b)) return LOWER.test(a) || UPPER.test(a);
  return (LOWER.test(a) && LOWER.test(b)) || (UPPER.test(a) && UPPER.test(b));
}

function compareStrings(a: string, b: string): Order | undefined {
  if (a === b) return 0;
  const shorter = Math.min(a.length, b.length);
  let index = 0;
  while (index < shorter && a[index] === b[index]) index += 1;
  if (index === shorter) {
    // One is a prefix of the other: certain only when what follows cannot be ignored.
    const next = a.length > b.length ? a[index] as string : b[index] as string;
    if (!PRINTABLE_ASCII.test(next)) return undefined;
    return a.length < b.length ? -1 : 1;
  }
  const left = a[index] as string;
  const right = b[index] as string;
  if (!sameRankingClass(left, right)) return undefined;
  return left < right ? -1 : 1;
}

/** CouchDB's order of two view keys, or `undefined` when it cannot be known here for certain. */
export function compareKeys(a: unknown, b: unknown): Order | undefined {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  switch (rankA) {
    case 0: case 1: case 2: return 0;
    case 3: return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
    case 4: return compareStrings(a as string, b as string);
    case 5: return compareArrays(a as unknown[], b as unknown[]);
    default: {
      // Objects compare by their members in CouchDB; the node's bounds use only the empty one ({} = "after everything").
      const emptyA = Object.keys(a as object).length === 0;
      const emptyB = Object.keys(b as object).length === 0;
      return emptyA && emptyB ? 0 : undefined;
    }
  }
}

function compareArrays(a: unknown[], b: unknown[]): Order | undefined {
  const shorter = Math.min(a.length, b.length);
  for (let index = 0; index < shorter; index += 1) {
    const order = compareKeys(a[index], b[index]);
    if (order !== 0) return order;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * Two keys no collation puts at the same place, even where their order is unknown: two different
 * strings of printable ASCII differ at some ICU level (none of those characters is ignorable).
 */
export function certainlyDistinct(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string' && a !== b && PRINTABLE_ASCII_TEXT.test(a) && PRINTABLE_ASCII_TEXT.test(b)) return true;
  const order = compareKeys(a, b);
  return order !== undefined && order !== 0;
}
