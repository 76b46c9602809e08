/**
 * The spec's boolean query values (spec "Endpoints": "Booleans in query strings are `T` or `F`").
 * The original node and its clients also send `true`/`false`, in any case; every service reads
 * them with this one rule.
 */
function parseSpecBoolean(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  if (lower === 't' || lower === 'true') return true;
  if (lower === 'f' || lower === 'false') return false;
  return undefined;
}

/**
 * A boolean argument of any service (obtain, Basic Harvest, OAI-PMH, slice; query string or JSON
 * body): undefined when the argument is absent, and only then does its default apply; a JSON
 * boolean as it is; text by parseSpecBoolean. Anything else is a bad value, reported by `bad` in
 * the service's own error form: an empty value (`by_doc_ID=`, `{"ids_only": ""}`) too, since an
 * argument given empty was given, with no boolean in it (read as absent, a client's mistake got
 * the default answer silently).
 */
export function specBooleanArgument(value: unknown, bad: () => Error): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  const flag = typeof value === 'string' ? parseSpecBoolean(value) : undefined;
  if (flag === undefined) throw bad();
  return flag;
}
