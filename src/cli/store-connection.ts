/**
 * Store connection for command-line tools: the configured CouchDB, else the embedded store of a
 * running node on the same DATA_DIR, else an embedded store started just for the tool.
 */
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Settings } from '../config/index.js';
import { databaseNames, type DatabaseNames } from '../storage/databases.js';
import { ensureDatabases } from '../storage/bootstrap.js';
import { connectCouch, type Couch } from '../storage/couch.js';
import { embeddedCredentials } from '../embedded/credentials.js';
import { EmbeddedCouch } from '../embedded/supervisor.js';
import { runningStoreUrl } from '../embedded/data-dir-in-use.js';

export interface ToolConnection { couch: Couch; close(): Promise<void> }

export async function connectForTool(settings: Settings): Promise<ToolConnection> {
  if (settings.couchdbUrl) {
    return { couch: connectCouch({ url: settings.couchdbUrl, user: settings.couchdbUser, password: settings.couchdbPassword }), close: async () => undefined };
  }
  const dataDir = path.resolve(settings.dataDir);
  const credentials = embeddedCredentials(dataDir);
  const running = await runningStoreUrl(dataDir, credentials);
  if (running) return { couch: connectCouch({ url: running, ...credentials }), close: async () => undefined };
  const embedded = new EmbeddedCouch({ dataDir, ...credentials, logger: pino({ level: 'silent' }) });
  const url = await embedded.start();
  return { couch: connectCouch({ url, ...credentials }), close: () => embedded.stop() };
}

/**
 * Runs `use` on the store of the node configured by `env` (its databases created if missing,
 * as at a node's start), then closes the connection: what each store-side command does.
 */
export async function withToolStore<T>(env: NodeJS.ProcessEnv, use: (couch: Couch, names: DatabaseNames) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const connection = await connectForTool(config.settings);
  try {
    const names = databaseNames(config.settings.dbPrefix);
    await ensureDatabases(connection.couch, names);
    return await use(connection.couch, names);
  } finally {
    await connection.close();
  }
}
