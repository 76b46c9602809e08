/**
 * The node's only connection to CouchDB (real CouchDB 3 or the embedded store): nano over the
 * HTTP API, one code path. CouchDB errors are mapped to AppError once, here.
 */
import Nano, { type RequestOptions, type ServerScope } from 'nano';
import { AppError, storeCredentialsRefused, storeUnavailable } from '../errors/app-error.js';

export type Couch = ServerScope;

export interface CouchTarget {
  url: string;
  user?: string | undefined;
  password?: string | undefined;
}

/** URL with credentials (settings override the URL's own); never logged. */
export function credentialedUrl(target: CouchTarget): string {
  const url = new URL(target.url);
  if (target.user !== undefined) url.username = encodeURIComponent(target.user);
  if (target.password !== undefined) url.password = encodeURIComponent(target.password);
  return url.toString().replace(/\/+$/, '');
}

/** Whether any credentials are given: a user in COUCHDB_USER or in the URL. */
export function hasCredentials(target: CouchTarget): boolean {
  return target.user !== undefined || new URL(target.url).username !== '';
}

/** The URL with any credentials removed, for logs and /status. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString().replace(/\/+$/, '');
}

export function connectCouch(target: CouchTarget): Couch {
  return Nano({ url: credentialedUrl(target) });
}

/**
 * A store request that settles as soon as `signal` aborts, whatever the HTTP exchange is doing.
 * nano hands `signal` on to fetch, but once the response headers are in, an abort does not
 * reliably end the body read: measured on the embedded store (whose `_changes` longpoll sends its
 * headers at once), a longpoll aborted 900 ms in resolved with its full body when its 30 s
 * timeout ran out, in 2 of 4 trials, while the same request through fetch alone was rejected at
 * once in 8 of 8; and when the abort does land, nano answers an empty body instead of an error.
 * Either way a bounded read could hang (a view read held a request 20 s past VIEW_WAIT_MS) and a
 * stopping node waited out its longpolls. The request left behind ends with the store's answer or
 * when the store drops its connections; its outcome is ignored.
 */
export function abortableRequest(couch: Couch, options: RequestOptions, signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  // nano passes `signal` on to fetch; its RequestOptions type does not list it. fetch (undici)
  // takes its abort listener off the signal only when the request is garbage-collected, so the
  // long-lived signals of the node's loops (the index warmer's, stopped only at shutdown) held
  // one listener per request until a major GC: 60 after 1.5 s of warmer polls (the test in
  // background-loops.test.ts). A signal of its own per request, following the caller's, takes
  // those listeners; the caller's signal holds only a weak reference to it.
  return whileNotAborted(couch.request({ ...options, signal: AbortSignal.any([signal]) } as never), signal);
}

/** `promise`, or a rejection as soon as `signal` aborts; the work behind it goes on (a store request, or a read shared with other requests). */
export function whileNotAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The store took longer than `waitMs` to answer a read the node bounds: 503, retry later. */
export function storeNotAnswering(waitMs: number, what: string, cause?: unknown): AppError {
  return storeUnavailable(`the store has not answered within ${waitMs / 1000} s (${what})`, { cause, retryAfter: 10 });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('store request aborted');
}

interface NanoError { statusCode?: number; error?: string; reason?: string; message?: string }

/** CouchDB error → AppError. Connection failures become 503 so the client knows to retry. */
export function mapCouchError(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  const nanoError = (error ?? {}) as NanoError;
  const status = nanoError.statusCode;
  if (status === undefined) {
    return storeUnavailable(`CouchDB is unreachable (${what})`, { cause: error });
  }
  if (status === 404) return new AppError(404, 'not_found', `${what}: not found`, true, { cause: error });
  if (status === 409) return new AppError(409, 'conflict', `${what}: update conflict`, true, { cause: error });
  if (status === 401 || status === 403) {
    return storeCredentialsRefused(status === 401 ? `CouchDB refused the node's credentials (${what})` : `CouchDB does not let the node's user do this (${what}): the node needs a server admin`, { cause: error });
  }
  if (status === 413) return new AppError(413, 'payload_too_large', `${what}: document too large for the store`, true, { cause: error });
  return new AppError(502, 'store_error', `CouchDB error (${what}): ${nanoError.error ?? status}`, true, { cause: error });
}

/**
 * The HTTP status the store answered a failed call with (undefined: it did not answer), read
 * through an AppError this module made of it; with CouchDB's reason, for messages that name the
 * setting to fix. The one reader of nano's error shape besides mapCouchError.
 */
export function storeAnswerOf(error: unknown): { status: number | undefined; reason: string | undefined } {
  const source = (error instanceof AppError ? error.cause : error) as NanoError | undefined;
  return { status: source?.statusCode, reason: typeof source?.reason === 'string' ? source.reason : undefined };
}

export const storeStatusOf = (error: unknown): number | undefined => storeAnswerOf(error).status;

export function isNotFound(error: unknown): boolean {
  return storeStatusOf(error) === 404;
}

/**
 * A 404 for a document that is not there ("missing") or was deleted ("deleted"), as CouchDB and
 * PouchDB answer a document GET; a 404 for the database itself is neither.
 */
export function isMissingDocument(error: unknown): boolean {
  const reason = (error as NanoError | undefined)?.reason;
  return isNotFound(error) && (reason === 'missing' || reason === 'deleted');
}

export function isConflict(error: unknown): boolean {
  return storeStatusOf(error) === 409;
}

/** The store's welcome (`GET /`): whether it answers at all, and to the node's credentials. */
export async function askStore(couch: Couch): Promise<void> {
  await inStore('ask the store', () => couch.info());
}

export function listDatabases(couch: Couch): Promise<string[]> {
  return inStore('list databases', () => couch.db.list());
}

/** Runs a store call and maps its failure; the one place repositories turn CouchDB errors into AppErrors. */
export async function inStore<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw mapCouchError(error, what);
  }
}
