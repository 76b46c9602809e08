/**
 * The one error type the HTTP layer renders. Like koa's http-errors, an error carries the HTTP
 * `status` and whether its message may be shown to the client (`expose`); anything else that
 * reaches the error exit is a 500 with a generic message and is logged, never shown.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'store_unavailable'
  | 'store_error'
  | 'internal_error';

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly expose = status < 500 || status === 503,
    options?: { cause?: unknown; retryAfter?: number },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.retryAfter = options?.retryAfter;
  }

  /** Seconds for a 503's Retry-After (RFC 9110 §10.2.3); unset: the protocol's default. */
  readonly retryAfter: number | undefined;
}

export const badRequest = (message: string): AppError => new AppError(400, 'bad_request', message);
export const notFound = (message: string): AppError => new AppError(404, 'not_found', message);
export const unauthorized = (message: string): AppError => new AppError(401, 'unauthorized', message);
export const storeUnavailable = (message: string, cause?: unknown): AppError =>
  new AppError(503, 'store_unavailable', message, true, { cause });

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
