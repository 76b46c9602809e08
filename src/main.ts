/** Entry point: configuration → store → bootstrap → app → listen; signals for a graceful stop. */
import { loadConfig, ConfigError } from './config/index.js';
import { createLogger } from './http/logger.js';
import { startNode } from './runtime.js';
import { loadSampleData } from './sample-data.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.settings.logLevel);
  const node = await startNode(config, logger);
  if (process.argv.includes('--sample-data')) {
    logger.info(await loadSampleData(node), 'sample data');
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    node.close().then(() => process.exit(0), (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`node failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
