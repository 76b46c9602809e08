/**
 * Turns ajv errors into one short, human-readable line, e.g.
 * `/identity must have required property 'submitter'` or
 * `/create_timestamp must be a UTC date-time like 2013-01-23T12:00:00Z ... (got '2013-02-31T12:00:00Z')`.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { LR_DATE_TIME_FORMAT, LR_DATE_TIME_HINT } from './lr-date-time.js';

const MAX_REPORTED = 5;
const MAX_VALUE_CHARS = 60;

/** A short description of a value: strings quoted (and cut), containers by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const cut = value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}...` : value;
      return `'${cut}'`;
    }
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** The value at a JSON Pointer (ajv `instancePath`), or undefined. */
// Ours: RFC 6901's two escapes; ajv exports no pointer lookup and no pointer library is among our dependencies.
function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

function formatOne(error: ErrorObject, data: unknown): string {
  const where = error.instancePath ? `${error.instancePath} ` : '';
  const params = error.params as Record<string, unknown>;
  const got = (): string => `(got ${describeValue(valueAt(data, error.instancePath))})`;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where}must NOT have additional property '${String(params.additionalProperty)}'`;
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(',');
      return `${where}must be ${types.join(' or ')} ${got()}`;
    }
    case 'const':
      return `${where}must be ${quote(params.allowedValue)} ${got()}`;
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      return `${where}must be one of ${allowed.map(quote).join(', ')} ${got()}`;
    }
    case 'format':
      if (params.format === LR_DATE_TIME_FORMAT) return `${where}must be ${LR_DATE_TIME_HINT} ${got()}`;
      return `${where}${error.message ?? 'has a wrong format'} ${got()}`;
    case 'anyOf':
      return `${where}does not match any of the allowed document forms`;
    default:
      return `${where}${error.message ?? `fails '${error.keyword}'`}`;
  }
}

/** Missing properties of one object, reported together: `must have required properties 'a', 'b'`. */
function formatMissing(instancePath: string, names: readonly string[]): string {
  const where = instancePath ? `${instancePath} ` : '';
  const list = names.map((name) => `'${name}'`).join(', ');
  return `${where}must have required ${names.length === 1 ? 'property' : 'properties'} ${list}`;
}

/**
 * One line for a list of ajv errors: distinct messages joined by '; ', at most five; the
 * missing properties of one object are grouped into one message.
 */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): string {
  if (!errors || errors.length === 0) return 'is not valid';
  const missing = new Map<string, string[]>();
  for (const error of errors) {
    if (error.keyword !== 'required') continue;
    const names = missing.get(error.instancePath) ?? [];
    const name = String((error.params as Record<string, unknown>).missingProperty);
    if (!names.includes(name)) names.push(name);
    missing.set(error.instancePath, names);
  }
  const formatted = errors.map((error) =>
    error.keyword === 'required' ? formatMissing(error.instancePath, missing.get(error.instancePath) ?? []) : formatOne(error, data),
  );
  const messages = [...new Set(formatted)];
  const shown = messages.slice(0, MAX_REPORTED).join('; ');
  const rest = messages.length - MAX_REPORTED;
  return rest > 0 ? `${shown}; and ${rest} more` : shown;
}
