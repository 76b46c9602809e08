/**
 * How every protocol's error exit (JSON, OAI-PMH, SWORD, HTML) logs an error it answers: one
 * rule, so the log level of an outcome does not depend on the protocol it was asked in. What the
 * operator chose or the client did wrong, and the node's own start-up, are no faults of the node:
 * they are logged without a stack, or not at all; anything else is an error with its stack.
 */
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';

/**
 * The spec's services refuse a client's mistake with HTTP 500 (SPEC_ERROR_STATUS): the code, not
 * the status, says it is a refusal.
 */
const REFUSAL_CODES = new Set(['invalid_request', 'payload_too_large']);

export const isRefusal = (error: AppError): boolean => REFUSAL_CODES.has(error.code);

export function logAnswered(log: Logger | undefined, error: unknown, message: string): void {
  if (error instanceof AppError) {
    // A service switched off in its description: the operator's choice, answered every time.
    if (error.code === 'service_inactive') return;
    if (isRefusal(error)) { log?.info({ status: error.status, refused: error.message }, 'request refused'); return; }
    // Polled by health checks and clients during every start (src/starting-app.ts).
    if (error.code === 'node_starting') { log?.info({ status: error.status }, error.message); return; }
    log?.error({ err: error, cause: (error.cause as Error | undefined)?.message }, message);
    return;
  }
  log?.error({ err: error }, message);
}
