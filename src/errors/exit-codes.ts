/**
 * The one table of process exit codes: the node (src/main.ts, `lr-node start`), the lr-node
 * commands (src/cli) and the scripts (scripts/*.ts) exit with these, so a supervisor or a script
 * can tell a bad setting from a store or node it cannot reach, a port in use and a refusal.
 * README "Exit codes" lists them.
 */
import { AppError } from './app-error.js';

export const EXIT = {
  ok: 0,
  /**
   * A failure the message names: the node cannot start with its configuration (a setting or
   * CONFIG, credentials CouchDB refuses, a CouchDB version it cannot use), or a command's local
   * failure (a weak password, a signature that does not verify, an unreadable file), or a
   * distribution run in which a destination failed or was unreachable (the node answered: not 3 or 4).
   */
  failure: 1,
  /** Bad command-line arguments or options (commander's own usage errors exit with this too). */
  usage: 2,
  /** The store (at start) or the node (lr-node commands) could not be reached, or kept failing after the retries. */
  unreachable: 3,
  /** The node answered and refused: authentication, a global publish error, rejected documents, an OAI-PMH error. */
  refused: 4,
  /** The node's port (PORT, MONITORING_PORT) is in use by another process. */
  portInUse: 5,
  /**
   * Nothing was done, and the same command later will do it (sysexits' EX_TEMPFAIL): `lr-node
   * distribute` found a distribution run in progress (another call's, the schedule's or another
   * node process's), so this call distributed nothing. Not 0: cron would take it for a run.
   */
  tryLater: 75,
  /** Stopped by SIGINT after saving what was done: the same command resumes. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of an error that ends a process; an error that carries its own (`exitCode`) keeps it. */
export function exitCodeOf(error: unknown): ExitCode {
  const own = (error as { exitCode?: unknown } | undefined)?.exitCode;
  if (typeof own === 'number' && (Object.values(EXIT) as number[]).includes(own)) return own as ExitCode;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE') return EXIT.portInUse;
  if (error instanceof AppError && error.code === 'store_credentials_refused') return EXIT.failure;
  if (error instanceof AppError && error.status === 503) return EXIT.unreachable;
  return EXIT.failure;
}

/**
 * A listener's failure (`listen EADDRINUSE: address already in use 127.0.0.1:8080`) with the
 * setting that chose its port appended, `… (PORT)`, as the embedded store's names
 * EMBEDDED_COUCH_PORT: the node listens on several ports, and the address alone does not say
 * which setting to change. The errno code stays, so the exit code does too.
 */
export function namingSetting(error: NodeJS.ErrnoException, setting: string): Error {
  return Object.assign(new Error(`${error.message} (${setting})`, { cause: error }), { code: error.code });
}
