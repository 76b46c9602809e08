/**
 * lr-node's failures and their exit codes, so scripts can tell a mistake of theirs from a node or
 * network they cannot reach and from a node that said no.
 */
export const EXIT = {
  ok: 0,
  /** A local failure: a weak password, a signature that does not verify, an unreadable file. */
  failure: 1,
  /** Bad arguments or options (commander's own usage errors exit with this too). */
  usage: 2,
  /** The node could not be reached or kept failing (after the retries). */
  network: 3,
  /** The node answered and refused: authentication, a global publish error, rejected documents, an OAI-PMH error. */
  refused: 4,
  /** Stopped by SIGINT after saving what was done: the same command resumes. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(message: string, readonly exitCode: ExitCode = EXIT.failure) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage);
export const networkError = (message: string): CliError => new CliError(message, EXIT.network);
export const refusedError = (message: string): CliError => new CliError(message, EXIT.refused);
