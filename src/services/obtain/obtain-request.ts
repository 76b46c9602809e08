/**
 * The Basic Obtain request (spec "Basic Obtain", argument table) from a GET query or a POST
 * body, normalised. Booleans are `T`/`F` in queries (also `true`/`false`); both spellings of the
 * GET ID (`request_ID`, and `request_id` of the path template) are accepted.
 */
import { AppError, specRefusal } from '../../errors/app-error.js';
import { specBooleanArgument } from '../../domain/spec-boolean.js';
import { idLookupOf } from '../../domain/id-lookup.js';
import { numberSetting } from '../service-settings.js';
import { jsonpNote } from '../jsonp.js';

export interface ObtainRequest {
  ids: string[];
  byDocId: boolean;
  byResourceId: boolean;
  /** Absent when the request does not say: false, or with a token alone, what the token continues. */
  idsOnly: boolean | undefined;
  token: string | undefined;
}

/** Obtain errors are HTTP 500 with {"OK": false, "error"} (spec "Errors": obtain 200 / 500). */
export const obtainError = (message: string): AppError => specRefusal('invalid_request', message);

const GET_ARGS = ['request_ID', 'request_id', 'by_doc_ID', 'by_resource_ID', 'ids_only', 'resumption_token'];
const POST_ARGS = ['request_IDs', 'by_doc_ID', 'by_resource_ID', 'ids_only', 'resumption_token'];

/**
 * The request's own limits, stated in the Basic Obtain description's service_data (spec "Limits":
 * "An implementation MUST state any size limits in the service description"; Basic Obtain rule
 * 8: "no limit on the number of IDs or message size unless the service description states
 * one"): the POST body's size (`msg_size_limit`, as publish and delete name theirs), the IDs one
 * request names, repeats included (`request_id_limit`: each is a store lookup and an entry of
 * the answer), and an ID's length (`id_length_limit`). A description without them (edited in the
 * store) gets these defaults, which CONFIG's schema states too.
 */
export interface ObtainRequestLimits { messageBytes: number; requestIds: number; idLength: number }
export const DEFAULT_REQUEST_LIMITS: ObtainRequestLimits = { messageBytes: 1024 * 1024, requestIds: 10000, idLength: 8192 };

export function requestLimitsOf(data: Record<string, unknown> | undefined): ObtainRequestLimits {
  const limit = (name: string, fallback: number): number => {
    const value = numberSetting(data, name);
    return value !== undefined && value >= 1 ? Math.floor(value) : fallback;
  };
  return {
    messageBytes: limit('msg_size_limit', DEFAULT_REQUEST_LIMITS.messageBytes),
    requestIds: limit('request_id_limit', DEFAULT_REQUEST_LIMITS.requestIds),
    idLength: limit('id_length_limit', DEFAULT_REQUEST_LIMITS.idLength),
  };
}

function checkIdLength(ids: string[], limits: ObtainRequestLimits): void {
  if (ids.some((id) => id.length > limits.idLength)) throw obtainError(`a request ID is too long: the limit is ${limits.idLength} characters (service_data.id_length_limit)`);
}

function flag(value: unknown, name: string): boolean | undefined {
  // null and an empty value are values of no boolean, not an absent argument.
  return specBooleanArgument(value, () => obtainError(`${name} must be T or F (or true/false)`));
}

function normalise(ids: string[], args: Record<string, unknown>): ObtainRequest {
  const byDocId = flag(args.by_doc_ID, 'by_doc_ID');
  const byResourceId = flag(args.by_resource_ID, 'by_resource_ID');
  if (byDocId === true && byResourceId === true) throw obtainError('by_doc_ID and by_resource_ID cannot both be true');
  const token = args.resumption_token;
  if (token !== undefined && typeof token !== 'string') throw obtainError('resumption_token must be a string');
  // An empty token is a bad token, as any empty argument is bad (spec-boolean.ts): read as absent
  // it restarted ALL at its first page. A flow control error, as for any token not issued here.
  if (token === '') throw obtainError('flow control error: resumption_token is empty; leave it out to start a list');
  // Document IDs when by_doc_ID is true or both flags are false; otherwise (the default too) resource locators.
  const byDocIds = idLookupOf(byDocId, byResourceId) === 'doc_ID';
  return {
    ids,
    byDocId: byDocIds,
    byResourceId: !byDocIds,
    idsOnly: flag(args.ids_only, 'ids_only'),
    token,
  };
}

function rejectUnknown(args: Record<string, unknown>, allowed: string[]): void {
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw obtainError(`unknown argument ${unknown.join(', ')}; obtain takes ${allowed.join(', ')}${jsonpNote(unknown)}`);
}

export function fromQuery(query: Record<string, string | string[] | undefined>, limits: ObtainRequestLimits = DEFAULT_REQUEST_LIMITS): ObtainRequest {
  rejectUnknown(query, GET_ARGS);
  for (const [key, value] of Object.entries(query)) if (Array.isArray(value)) throw obtainError(`${key} is given more than once`);
  const id = query.request_ID ?? query.request_id;
  if (query.request_ID !== undefined && query.request_id !== undefined) throw obtainError('give request_ID or request_id, not both');
  // A missing ID means ALL; an empty one names no document, as "" in a POST's request_IDs does not.
  if (id === '') throw obtainError(`${query.request_ID !== undefined ? 'request_ID' : 'request_id'} is empty: name an ID, or leave the argument out to ask for ALL`);
  const ids = typeof id === 'string' ? [id] : [];
  checkIdLength(ids, limits);
  return normalise(ids, query);
}

export function fromBody(body: unknown, limits: ObtainRequestLimits = DEFAULT_REQUEST_LIMITS): ObtainRequest {
  const args = body === undefined || body === null ? {} : body;
  if (typeof args !== 'object' || Array.isArray(args)) throw obtainError('the request body must be a JSON object');
  const record = args as Record<string, unknown>;
  rejectUnknown(record, POST_ARGS);
  // Absent means "all"; any other value, null included, must be the array of IDs.
  const ids = record.request_IDs === undefined ? [] : record.request_IDs;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id.length > 0)) throw obtainError('request_IDs must be an array of non-empty strings');
  checkIdLength(ids as string[], limits);
  // An ID named twice is answered twice (rule 2: results align 1:1 with the request IDs), from one store read (aligned-answers.ts).
  if (ids.length > limits.requestIds) throw obtainError(`too many request_IDs: ${ids.length}, the limit is ${limits.requestIds} (service_data.request_id_limit)`);
  return normalise(ids as string[], record);
}
