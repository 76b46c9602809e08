/**
 * Store connection for command-line tools: the configured CouchDB, else the embedded store of a
 * running node on the same DATA_DIR, else the embedded store of a stopped node started just for
 * the tool. Only a store some node has started on is used: a tool never creates a store or a
 * node's databases, which no node would read (an operator's account added to a fresh ./data while
 * the node runs elsewhere, then 401 at every publish).
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig, type Settings } from '../config/index.js';
import { databaseNames, type DatabaseNames } from '../storage/databases.js';
import { connectCouch, hasCredentials, listDatabases, redactedUrl, storeAnswerOf, type Couch } from '../storage/couch.js';
import { NO_COUCHDB_CREDENTIALS } from '../storage/server-check.js';
import { AppError } from '../errors/app-error.js';
import { embeddedCredentials } from '../embedded/credentials.js';
import { EmbeddedCouch } from '../embedded/supervisor.js';
import { runningStoreUrl } from '../embedded/data-dir-in-use.js';

export interface ToolConnection {
  couch: Couch;
  /** Where the store is, for the operator (never credentials): `DATA_DIR /abs/dir (…)` or `COUCHDB_URL http://…`. */
  location: string;
  close(): Promise<void>;
}

/** What a node's first start leaves in its DATA_DIR: the store's admin credential and its LevelDB directory. */
const EMBEDDED_STORE_FILES = ['embedded-admin.json', 'store'];

const START_ONCE = 'a new node\'s store and databases are created by its first start (lr-node start), not by this command';

export async function connectForTool(settings: Settings): Promise<ToolConnection> {
  if (settings.couchdbUrl) {
    return {
      couch: connectCouch({ url: settings.couchdbUrl, user: settings.couchdbUser, password: settings.couchdbPassword }),
      location: `COUCHDB_URL ${redactedUrl(settings.couchdbUrl)}`,
      close: async () => undefined,
    };
  }
  const dataDir = path.resolve(settings.dataDir);
  // Checked before anything is written there: embeddedCredentials and the store would create them.
  if (!EMBEDDED_STORE_FILES.every((name) => fs.existsSync(path.join(dataDir, name)))) {
    throw new ConfigError('DATA_DIR', `no node has run on ${dataDir} (it holds no embedded store): set DATA_DIR to the node's data directory, or COUCHDB_URL (and DB_PREFIX) to its CouchDB; ${START_ONCE}`);
  }
  const credentials = embeddedCredentials(dataDir);
  const running = await runningStoreUrl(dataDir, credentials);
  if (running) return { couch: connectCouch({ url: running, ...credentials }), location: `DATA_DIR ${dataDir} (the running node's embedded store)`, close: async () => undefined };
  const embedded = new EmbeddedCouch({ dataDir, ...credentials, logger: pino({ level: 'silent' }) });
  const url = await embedded.start();
  return { couch: connectCouch({ url, ...credentials }), location: `DATA_DIR ${dataDir} (no node runs there: its embedded store started for this command)`, close: () => embedded.stop() };
}

/** Refuses a store that lacks the node's databases (no node started on it with this DB_PREFIX). */
async function requireNodeDatabases(connection: ToolConnection, settings: Settings, names: DatabaseNames): Promise<void> {
  const existing = new Set(await listDatabases(connection.couch));
  // Not incoming_parked: added on 2026-11-27, it is created by the next start of the node, and a
  // store an earlier version made is still a node's (an upgrade's first `lr-node account` comes
  // before that start).
  const missing = Object.values(names).filter((name) => name !== names.incomingParked && !existing.has(name));
  if (missing.length === 0) return;
  const setting = settings.couchdbUrl ? 'COUCHDB_URL' : 'DATA_DIR';
  throw new ConfigError(setting, `${connection.location} holds no node with DB_PREFIX "${settings.dbPrefix}" (no database ${missing.join(', ')}): set ${setting} and DB_PREFIX to the node's; ${START_ONCE}`);
}

/**
 * CouchDB's refusal of the credentials in COUCHDB_URL (or COUCHDB_USER), or of none, as the
 * setting to fix. The tool said "CouchDB refused the node's credentials (list databases)" also
 * when none were given, and not what to set. Credentials are never named; CouchDB's own reason
 * ("You are not a server admin.", "Name or password is incorrect.") tells the two cases apart.
 */
function credentialsRefusal(error: unknown, settings: Settings): unknown {
  if (!settings.couchdbUrl || !(error instanceof AppError) || error.code !== 'store_credentials_refused') return error;
  const url = redactedUrl(settings.couchdbUrl);
  const couch = storeAnswerOf(error);
  const answered = `CouchDB at ${url} answered ${String(couch.status)}${couch.reason !== undefined ? ` "${couch.reason}"` : ''}`;
  if (!hasCredentials({ url: settings.couchdbUrl, user: settings.couchdbUser })) {
    return new ConfigError('COUCHDB_URL', `${NO_COUCHDB_CREDENTIALS}, the node's own (${answered}: CouchDB 3 lets only server admins use the node's databases)`);
  }
  return new ConfigError('COUCHDB_URL', `the credentials given in COUCHDB_URL or COUCHDB_USER/COUCHDB_PASSWORD were refused (${answered}): set the node's own, a server admin's`);
}

/**
 * Runs `use` on the store of the node configured by `env`, then closes the connection: what each
 * store-side command does. Says on standard error which store it uses (`COMMAND: store …`), and
 * refuses one no node has started on.
 */
export async function withToolStore<T>(env: NodeJS.ProcessEnv, command: string, use: (couch: Couch, names: DatabaseNames) => Promise<T>): Promise<T> {
  const { settings } = loadConfig(env);
  const connection = await connectForTool(settings);
  try {
    const names = databaseNames(settings.dbPrefix);
    await requireNodeDatabases(connection, settings, names).catch((error: unknown) => { throw credentialsRefusal(error, settings); });
    process.stderr.write(`${command}: store ${connection.location}${settings.dbPrefix ? `, DB_PREFIX ${settings.dbPrefix}` : ''}\n`);
    return await use(connection.couch, names);
  } finally {
    await connection.close();
  }
}
