/**
 * The arguments of GET /slice (spec "Slice (optional)"), checked and normalised. The spec leaves
 * the error form of slice open ("HTTP status codes for ... slice ...: not shown"); every bad
 * argument is a 400 `{"OK": false, "error": ...}` naming the argument, so a client can fix it.
 */
import { badRequest } from '../../errors/app-error.js';
import { specBooleanArgument } from '../../domain/spec-boolean.js';
import { jsonpNote } from '../jsonp.js';

export interface SliceArgs {
  /** Lower-cased and trimmed, as the by_identity view keys it. */
  identity: string | undefined;
  /** Lower-cased, trimmed, distinct and sorted, as the by_tag view keys them. */
  tags: string[];
  /** YYYY-MM-DD, inclusive. */
  from: string | undefined;
  /** YYYY-MM-DD, exclusive. */
  until: string | undefined;
  /** Undefined when not sent (a token sent alone continues with its own). */
  idsOnly: boolean | undefined;
  resumptionToken: string | undefined;
}

const KNOWN = new Set(['identity', 'any_tags', 'from', 'until', 'ids_only', 'resumption_token']);

/** Each tag is one range read per page; more than this is refused rather than fanned out. */
export const MAX_TAGS = 20;

/**
 * Longest identity or tag, and longest resumption token: far above any real value, and short
 * enough that a key never costs the store more than a small read.
 */
export const MAX_VALUE_LENGTH = 1000;
const MAX_TOKEN_LENGTH = 4096;

type Query = Record<string, string | string[] | undefined>;

function capped(name: string, value: string, limit: number): string {
  if (value.length > limit) throw badRequest(`${name} is too long: ${value.length} characters, the limit is ${limit}`);
  return value;
}

function single(query: Query, name: string, limit = MAX_VALUE_LENGTH): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw badRequest(`${name} is given more than once`);
  return value === undefined ? undefined : capped(name, value, limit);
}

function day(query: Query, name: string): string | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  // Round-tripping rejects dates that do not exist (2023-02-30), which Date would roll over.
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw badRequest(`${name} must be a date YYYY-MM-DD (day granularity), got "${value.slice(0, 40)}"`);
  }
  return value;
}

function bool(query: Query, name: string): boolean | undefined {
  const value = single(query, name);
  return specBooleanArgument(value, () => badRequest(`${name} must be T, F, true or false, got "${String(value).slice(0, 40)}"`));
}

/**
 * A comma-separated list in which a tag holding a comma is quoted, as in a CSV field (RFC 4180
 * §2.6-2.7): `"interest, simple interest",math`, with `""` for a quote inside quotes. Stored
 * keys hold commas (the NSDL corpus has "interest, simple interest"), and a bare comma has always
 * separated tags (the original node split on it), so quoting is the one way to name such a key.
 */
export function splitTags(value: string): string[] {
  const tags: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i] as string;
    if (quoted) {
      if (c !== '"') current += c;
      else if (value[i + 1] === '"') { current += '"'; i += 1; } else quoted = false;
    } else if (c === ',') {
      tags.push(current);
      current = '';
    } else if (c === '"' && current.trim() === '') {
      quoted = true;
      current = '';
    } else {
      current += c;
    }
  }
  if (quoted) throw badRequest('any_tags has a quote that is not closed');
  tags.push(current);
  return tags;
}

export function parseSliceArgs(query: Query): SliceArgs {
  const unknown = Object.keys(query).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) throw badRequest(`unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).map((name) => name.slice(0, 40)).join(', ')}${jsonpNote(unknown)}`);
  const rawIdentity = single(query, 'identity');
  const identity = rawIdentity?.trim().toLowerCase();
  if (identity !== undefined && identity.length === 0) throw badRequest('identity is empty');
  // any_tags is a comma-separated list; repeating the argument adds to the list.
  const rawTags = query.any_tags;
  const pieces = (Array.isArray(rawTags) ? rawTags : rawTags === undefined ? [] : [rawTags]).flatMap(splitTags);
  const tags = [...new Set(pieces.map((tag) => capped('a tag of any_tags', tag.trim().toLowerCase(), MAX_VALUE_LENGTH)).filter((tag) => tag.length > 0))].sort();
  if (rawTags !== undefined && tags.length === 0) throw badRequest('any_tags is empty');
  if (tags.length > MAX_TAGS) throw badRequest(`any_tags has ${tags.length} tags, at most ${MAX_TAGS} are allowed`);
  const from = day(query, 'from');
  const until = day(query, 'until');
  if (from !== undefined && until !== undefined && from > until) throw badRequest(`from (${from}) is after until (${until})`);
  const resumptionToken = single(query, 'resumption_token', MAX_TOKEN_LENGTH);
  if (resumptionToken !== undefined && resumptionToken.length === 0) throw badRequest('resumption_token is empty');
  return { identity, tags, from, until, idsOnly: bool(query, 'ids_only'), resumptionToken };
}
