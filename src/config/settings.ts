/**
 * Process settings: each has a description, an environment name and a default. A wrong value
 * throws ConfigError naming the setting, and main.ts turns it into a one-line message and exit 1.
 */
export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`configuration error: ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface Settings {
  port: number;
  host: string;
  couchdbUrl: string | undefined;
  couchdbUser: string | undefined;
  couchdbPassword: string | undefined;
  dataDir: string;
  /** Unset: derived from the address the node listens on, once it listens. */
  publicUrl: string | undefined;
  configPath: string | undefined;
  dbPrefix: string;
  logLevel: string;
  embeddedPort: number;
}

interface SettingSpec<K extends keyof Settings> {
  key: K;
  env: string;
  description: string;
  default: (partial: Partial<Settings>) => Settings[K];
  parse: (raw: string, env: string) => Settings[K];
}

function parsePort(raw: string, env: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) throw new ConfigError(env, `must be a port number 0-65535, got "${raw}"`);
  return value;
}

function parseUrl(raw: string, env: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(env, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(env, 'must use http or https');
  return raw.replace(/\/+$/, '');
}

const text = (raw: string): string => raw;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const SETTINGS = [
  { key: 'port', env: 'PORT', description: 'TCP port the node listens on (0 picks a free one)', default: () => 8080, parse: parsePort },
  { key: 'host', env: 'HOST', description: 'interface the node listens on', default: () => '127.0.0.1', parse: text },
  { key: 'couchdbUrl', env: 'COUCHDB_URL', description: 'URL of an Apache CouchDB 3 server; credentials may be in the URL. Unset: the embedded store is started', default: () => undefined, parse: parseUrl },
  { key: 'couchdbUser', env: 'COUCHDB_USER', description: 'CouchDB user name, when not in COUCHDB_URL', default: () => undefined, parse: text },
  { key: 'couchdbPassword', env: 'COUCHDB_PASSWORD', description: 'CouchDB password, when not in COUCHDB_URL', default: () => undefined, parse: text },
  { key: 'dataDir', env: 'DATA_DIR', description: 'directory of the embedded store (LevelDB files and its admin credential)', default: () => './data', parse: text },
  { key: 'publicUrl', env: 'PUBLIC_URL', description: 'URL the node advertises in service descriptions and as OAI-PMH baseURL (default: http://HOST:PORT as bound)', default: () => undefined, parse: parseUrl },
  { key: 'configPath', env: 'CONFIG', description: 'JSON file with the node, community, network, policy and service settings', default: () => undefined, parse: text },
  { key: 'dbPrefix', env: 'DB_PREFIX', description: 'prefix of every database name, so several nodes can share one CouchDB', default: () => '', parse: (raw, env) => {
    if (!/^[a-z][a-z0-9_$()+/-]*$|^$/.test(raw)) throw new ConfigError(env, 'must start with a lower-case letter and use CouchDB database-name characters');
    return raw;
  } },
  { key: 'logLevel', env: 'LOG_LEVEL', description: `log level (${LOG_LEVELS.join(', ')})`, default: () => 'info', parse: (raw, env) => {
    if (!LOG_LEVELS.includes(raw)) throw new ConfigError(env, `must be one of ${LOG_LEVELS.join(', ')}`);
    return raw;
  } },
  { key: 'embeddedPort', env: 'EMBEDDED_COUCH_PORT', description: 'loopback port of the embedded store (0 picks a free one)', default: () => 0, parse: parsePort },
] as const satisfies readonly SettingSpec<keyof Settings>[];

/** Reads every setting from the environment; unset or empty values take their defaults, in table order. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const partial: Partial<Record<keyof Settings, unknown>> = {};
  for (const spec of SETTINGS as readonly SettingSpec<keyof Settings>[]) {
    const raw = env[spec.env];
    partial[spec.key] = raw === undefined || raw === '' ? spec.default(partial as Partial<Settings>) : spec.parse(raw, spec.env);
  }
  return partial as unknown as Settings;
}
