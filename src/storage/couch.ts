/**
 * The node's only connection to CouchDB (real CouchDB 3 or the embedded store): nano over the
 * HTTP API, one code path. CouchDB errors are mapped to AppError once, here.
 */
import Nano, { type ServerScope } from 'nano';
import { AppError, storeUnavailable } from '../errors/app-error.js';

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
    return storeUnavailable(`CouchDB refused the node's credentials (${what})`, { cause: error });
  }
  if (status === 413) return new AppError(413, 'payload_too_large', `${what}: document too large for the store`, true, { cause: error });
  return new AppError(502, 'store_error', `CouchDB error (${what}): ${nanoError.error ?? status}`, true, { cause: error });
}

export function isNotFound(error: unknown): boolean {
  return (error as NanoError | undefined)?.statusCode === 404;
}

export function isConflict(error: unknown): boolean {
  return (error as NanoError | undefined)?.statusCode === 409;
}

/** Runs a store call and maps its failure; the one place repositories turn CouchDB errors into AppErrors. */
export async function inStore<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw mapCouchError(error, what);
  }
}
