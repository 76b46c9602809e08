/**
 * A refusal of the SWORD service, rendered by its routes as a `sword:error` document (SWORD 1.3
 * profile section 2.3), never through the JSON error exit. It is an AppError like every error of
 * the node (status, expose, protocol-neutral code); an AppError of another layer is mapped onto
 * the profile's URIs by its code. Server-side failures get a node URI, since the profile has none.
 */
import { SWORD_ERRORS, type SwordErrorName } from '../../protocol/sword/namespaces.js';
import { AppError, type ErrorCode } from '../../errors/app-error.js';

/** The protocol-neutral code of each of the profile's errors. */
const CODE_OF: Record<SwordErrorName, ErrorCode> = {
  ErrorContent: 'unsupported_media_type',
  ErrorChecksumMismatch: 'invalid_request',
  ErrorBadRequest: 'invalid_request',
  TargetOwnerUnknown: 'unauthorized',
  MediationNotAllowed: 'forbidden',
  MaxUploadSizeExceeded: 'payload_too_large',
};

/** The profile's error for a client error of another layer; any other client error is ErrorBadRequest. */
const NAME_OF: Partial<Record<ErrorCode, SwordErrorName>> = {
  unauthorized: 'TargetOwnerUnknown',
  payload_too_large: 'MaxUploadSizeExceeded',
  unsupported_media_type: 'ErrorContent',
};

/** Codes of errors that are the client's, whatever status another protocol gives them (SPEC_ERROR_STATUS). */
const CLIENT_CODES: readonly ErrorCode[] = ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'conflict', 'payload_too_large', 'unsupported_media_type'];

export class SwordError extends AppError {
  readonly uri: string;

  constructor(name: SwordErrorName, message: string) {
    super(SWORD_ERRORS[name].status, CODE_OF[name], message, true);
    this.name = 'SwordError';
    this.uri = SWORD_ERRORS[name].uri;
  }
}

/** Status, error URI and summary for any error; `expose` false means log it and say little. */
export function describeSwordError(error: unknown): { status: number; uri: string; summary: string; expose: boolean } {
  if (error instanceof SwordError) return { status: error.status, uri: error.uri, summary: error.message, expose: true };
  // An account without the role: 403 (no WWW-Authenticate, unlike TargetOwnerUnknown's 401); the
  // profile has no URI of its own for it, and the owner it names is not a publishing owner.
  if (error instanceof AppError && error.code === 'forbidden') return { status: 403, uri: SWORD_ERRORS.TargetOwnerUnknown.uri, summary: error.message, expose: true };
  // A method the endpoint does not take: the profile has no URI for it, and its status stays 405.
  if (error instanceof AppError && error.code === 'method_not_allowed') return { status: 405, uri: SWORD_ERRORS.ErrorBadRequest.uri, summary: error.message, expose: true };
  if (error instanceof AppError && CLIENT_CODES.includes(error.code)) {
    const name = NAME_OF[error.code] ?? 'ErrorBadRequest';
    return { status: SWORD_ERRORS[name].status, uri: SWORD_ERRORS[name].uri, summary: error.message, expose: true };
  }
  const status = error instanceof AppError ? error.status : 500;
  const summary = error instanceof AppError && error.expose ? error.message : 'internal error';
  return { status, uri: `urn:x-learning-registry:sword:error:${status === 503 ? 'ServiceUnavailable' : 'InternalError'}`, summary, expose: status === 503 };
}
