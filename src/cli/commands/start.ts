/**
 * lr-node start (what `npm start` runs): configuration from the environment, the node, signals
 * for a graceful stop. The log is JSON lines, or readable lines (pino-pretty) when standard
 * output is a terminal.
 */
import pinoPretty from 'pino-pretty';
import { loadConfig } from '../../config/index.js';
import { softwareVersion } from '../../config/software-version.js';
import { createLogger } from '../../http/logger.js';
import { startNode } from '../../runtime.js';
import { loadSampleData } from '../../sample-data.js';
import { EXIT } from '../../errors/exit-codes.js';

export async function start(options: { sampleData: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  // sync: a line logged just before process.exit is not lost.
  const destination = process.stdout.isTTY ? pinoPretty({ colorize: true, sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname' }) : undefined;
  const logger = createLogger(config.settings.logLevel, destination);
  logger.info({ version: softwareVersion(), node: process.version }, 'lr-node starting');
  const starting = startNode(config, logger);
  let stopping = false;
  // Registered before the node is up: a Ctrl-C during start-up stops it as soon as it is.
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    starting.then((node) => node.close()).then(() => process.exit(EXIT.ok), (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(EXIT.failure);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const node = await starting;
  if (options.sampleData && !stopping) {
    const loaded = await loadSampleData(node);
    if (loaded.refused > 0) logger.warn(loaded, 'sample data: this node\'s policy refused some documents');
    else logger.info(loaded, 'sample data');
  }
}
