/**
 * The one error vocabulary of the node. Like koa's http-errors, an error carries the HTTP
 * `status` and whether its message may be shown to the client (`expose`), plus a protocol-neutral
 * `code` that says what went wrong whatever protocol answers it. One exit per protocol renders
 * it: JSON `{"OK": false, "error"}` (src/http/error-exit.ts), OAI-PMH (oai-pmh.routes.ts),
 * `sword:error` (src/services/sword/sword-error.ts) and the HTML pages (src/http/html-error.ts).
 * Anything else that reaches an exit is a 500 with a generic message and is logged, never shown.
 * Protocol errors that are answers of a successful exchange (OAI-PMH `<error code>`, OAI-PMH 2.0
 * §3.6; a harvest `OK: false`, spec "Basic Harvest") are not raised as AppErrors: they are
 * rendered with HTTP 200 by their service (oai-errors.ts, harvest-request.ts).
 */
export type ErrorCode =
  /** The request itself is wrong: an argument, a body that is not the JSON asked for. */
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  /** Too many failed sign-ins from one address (429), or too many password checks at once (503). */
  | 'too_many_attempts'
  /** The store is unreachable, refuses the node, is still indexing, or the node is not bootstrapped. */
  | 'store_unavailable'
  /** Too many list pages and publish batches in progress for longer than a request may wait (src/http/request-slots.ts). */
  | 'node_busy'
  /** The store refuses the node's credentials, or its user lacks the rights the node needs. */
  | 'store_credentials_refused'
  /** Between binding the port and the end of bootstrap (src/starting-app.ts). */
  | 'node_starting'
  /** The service is switched off in its service description (`active: false`). */
  | 'service_inactive'
  /** A service description holds a value the node cannot act on (edited in CouchDB, past CONFIG's validation). */
  | 'misconfigured'
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

  /** Seconds for a 503's Retry-After (RFC 9110 §10.2.3); unset: DEFAULT_RETRY_AFTER_SECONDS. */
  readonly retryAfter: number | undefined;
}

/** Retry-After of a 503 that names no time of its own (RFC 9110 §10.2.3, §15.6.4). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** The Retry-After every protocol's exit sends with a 503: the error's own, or the default. */
export function retryAfterOf(error: unknown): number {
  return error instanceof AppError && error.retryAfter !== undefined ? error.retryAfter : DEFAULT_RETRY_AFTER_SECONDS;
}

export const badRequest = (message: string): AppError => new AppError(400, 'invalid_request', message);

/** The one "store not reachable / not usable" outcome: 503 with Retry-After in every protocol. */
export const storeUnavailable = (message: string, options?: { cause?: unknown; retryAfter?: number }): AppError =>
  new AppError(503, 'store_unavailable', message, true, options);

/**
 * CouchDB refused the node's credentials (401), or the user may not do what the node needs (403,
 * e.g. not a server admin): 503 to a client, as the store is not usable, but a node that meets it
 * at start exits with EXIT.failure (a setting to fix), not EXIT.unreachable (src/errors/exit-codes.ts).
 */
export const storeCredentialsRefused = (message: string, options?: { cause?: unknown }): AppError =>
  new AppError(503, 'store_credentials_refused', message, true, options);

/**
 * Between binding its port and the end of bootstrap the node answers every request with this
 * (src/starting-app.ts): an expected state, logged without a stack (src/http/log-answered.ts).
 */
export const nodeStarting = (retryAfter: number): AppError =>
  new AppError(503, 'node_starting', 'the node is starting: its store is not ready yet', true, { retryAfter });

/** A node document bootstrap writes is missing: the store was reset or bootstrap has not run. */
export const notBootstrapped = (missing: string): AppError =>
  storeUnavailable(`the node is not bootstrapped: ${missing} is missing from the store`);

/**
 * The spec's status table (spec "Errors": publish, delete, distribute, destination: "HTTP 200 /
 * 500, no error / error"; obtain: "200 / 500, OK / ERROR") answers every error of these services
 * with HTTP 500, including errors that are the client's. This is the one place that models it:
 * the refusal keeps a code that says what it is (`invalid_request`, `payload_too_large`) and gets
 * the spec's status. Refusals made before the service runs keep their HTTP status: credentials
 * (401/403, spec "Authentication"), the media type (415) and availability (503 + Retry-After).
 */
export const SPEC_ERROR_STATUS = 500;

export class SpecRefusal extends AppError {
  constructor(code: 'invalid_request' | 'payload_too_large', message: string) {
    super(SPEC_ERROR_STATUS, code, message, true);
    this.name = 'SpecRefusal';
  }
}

export const specRefusal = (code: 'invalid_request' | 'payload_too_large', message: string): SpecRefusal => new SpecRefusal(code, message);

/** 403: the account holds no role that allows the request (the gate's and SWORD's own check). */
export function missingRole(account: { name: string; roles: readonly string[] }, role: string): AppError {
  return new AppError(403, 'forbidden', `account ${account.name} does not hold the role ${role} (it holds: ${account.roles.join(', ') || 'none'})`);
}
