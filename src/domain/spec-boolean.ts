/**
 * The spec's boolean query values (spec "Endpoints": "Booleans in query strings are `T` or `F`").
 * The original node and its clients also send `true`/`false`, in any case; every service reads
 * them with this one rule. What an absent or empty argument means, and how a bad value is
 * reported, stays with each protocol.
 */
export function parseSpecBoolean(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  if (lower === 't' || lower === 'true') return true;
  if (lower === 'f' || lower === 'false') return false;
  return undefined;
}
