/** Entry point of the node process (`lr-node start` runs the same code): configuration → store → app → listen. */
import { ConfigError } from './config/index.js';
import { start } from './cli/commands/start.js';
import { exitCodeOf } from './errors/exit-codes.js';

start({ sampleData: process.argv.includes('--sample-data') }).catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `node failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(exitCodeOf(error));
});
