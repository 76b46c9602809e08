/**
 * Text CouchDB can store: every string well-formed UTF-16, so that it has a UTF-8 form. A lone
 * surrogate (`"\ud800"` in JSON) makes CouchDB refuse the whole request body as invalid UTF-8
 * (400 bad_request, which failed a whole publish batch or a delete with a 502); the embedded store
 * takes it. `\p{Cs}` under the `u` flag matches only unpaired surrogates (a pair is one code point).
 */
const LONE_SURROGATE = /\p{Cs}/u;

export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/** Whether any string in a JSON value (keys included) holds a lone surrogate. */
export function holdsIllFormedText(value: unknown): boolean {
  if (typeof value === 'string') return !isWellFormedText(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsIllFormedText);
  return Object.entries(value).some(([key, item]) => !isWellFormedText(key) || holdsIllFormedText(item));
}
