/**
 * lr-node's failures; their exit codes are the node's one table (src/errors/exit-codes.ts), so
 * scripts can tell a mistake of theirs from a node they cannot reach and from a node that said no.
 * A message never names the command: program.ts prints every failure as `COMMAND: message`.
 */
import { EXIT, type ExitCode } from '../errors/exit-codes.js';

export class CliError extends Error {
  constructor(message: string, readonly exitCode: ExitCode = EXIT.failure) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage);
export const networkError = (message: string): CliError => new CliError(message, EXIT.unreachable);
export const refusedError = (message: string): CliError => new CliError(message, EXIT.refused);
