/** A JSON object (not null, not an array): the one test every layer uses before reading fields of parsed input. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
