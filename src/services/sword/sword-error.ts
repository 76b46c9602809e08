/**
 * A refusal of the SWORD service, rendered by its routes as a `sword:error` document (SWORD 1.3
 * profile section 2.3), never through the JSON error exit. Any other error is mapped onto the
 * profile's URIs by status; server-side failures get a node URI, since the profile has none.
 */
import { SWORD_ERRORS, type SwordErrorName } from '../../protocol/sword/namespaces.js';
import { AppError } from '../../errors/app-error.js';

export class SwordError extends Error {
  readonly status: number;
  readonly uri: string;

  constructor(name: SwordErrorName, message: string) {
    super(message);
    this.name = 'SwordError';
    this.status = SWORD_ERRORS[name].status;
    this.uri = SWORD_ERRORS[name].uri;
  }
}

/** Status, error URI and summary for any error; `expose` false means log it and say little. */
export function describeSwordError(error: unknown): { status: number; uri: string; summary: string; expose: boolean } {
  if (error instanceof SwordError) return { status: error.status, uri: error.uri, summary: error.message, expose: true };
  if (error instanceof AppError && error.status < 500) {
    const name: SwordErrorName = error.status === 401 ? 'TargetOwnerUnknown'
      : error.status === 413 ? 'MaxUploadSizeExceeded'
        : error.status === 415 ? 'ErrorContent' : 'ErrorBadRequest';
    return { status: SWORD_ERRORS[name].status, uri: SWORD_ERRORS[name].uri, summary: error.message, expose: true };
  }
  const status = error instanceof AppError ? error.status : 500;
  const summary = error instanceof AppError && error.expose ? error.message : 'internal error';
  return { status, uri: `urn:x-learning-registry:sword:error:${status === 503 ? 'ServiceUnavailable' : 'InternalError'}`, summary, expose: status === 503 };
}
