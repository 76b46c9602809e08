/**
 * Process settings: each has a description, an environment name and a default. A wrong value
 * throws ConfigError naming the setting, and main.ts turns it into a one-line message and exit 1.
 */
import os from 'node:os';
import { classifyAddress } from '../net/ip-address.js';

export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`configuration error: ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface Settings {
  port: number;
  host: string;
  /** Reverse proxies in front of the node whose X-Forwarded-For it believes (0: the socket's address). */
  trustProxy: number;
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
  /** Loopback-only port serving /metrics and /dashboard without credentials; unset: none. */
  monitoringPort: number | undefined;
  /** Longest a request waits for a view index being built before it is answered 503 + Retry-After. */
  viewWaitMs: number;
  /** Whether the node keeps view indexes current as documents arrive (src/storage/index-warmer.ts). */
  indexWarming: boolean;
  /**
   * The most documents the view indexes may trail the database by when a publish request is
   * answered (src/storage/index-pacer.ts); undefined: publish answers never wait for the indexes.
   */
  publishMaxIndexLag: number | undefined;
  /**
   * With publishMaxIndexLag a backstop (src/deps.ts): the lag the rest of a bulk publish that met
   * it is paced to, until the indexes have caught up (index-pacer.ts, catchUpLag); undefined: none.
   */
  publishCatchUpIndexLag: number | undefined;
  /** zlib level (1-9) of gzip and deflate answers (src/http/compression.ts). */
  compressionLevel: number;
  /** Origins whose web pages may read the public read services (src/http/cross-origin.ts): none, any ('*'), or these. */
  corsOrigins: CorsOrigins;
  /** Whether the next page of a list a harvester follows is read while this one is sent (src/storage/read-ahead.ts). */
  readAhead: boolean;
  /** Whether start-up deletes the design docs earlier versions pushed and this one retired (off during a rolling upgrade). */
  retireDesignDocs: boolean;
  /** First try again of an arrived document whose refusal may pass, in ms (src/services/distribute/parked-documents.ts). */
  incomingRetryMs: number;
  /** How long such a document is tried again before it is given up, in ms. */
  incomingRetryLifetimeMs: number;
  /** Worker threads for proxy signing and signature verification; 0 runs them on the event loop (src/domain/signature/signature-pool.ts). */
  signatureWorkers: number;
  /** List pages and publish batches handled at once by this process (src/http/request-slots.ts); undefined: no limit. */
  heavyRequestLimit: number | undefined;
  /** OpenID Connect provider of the /auth page; all three set, or none (then /auth says so). */
  oidcIssuer: string | undefined;
  oidcClientId: string | undefined;
  oidcClientSecret: string | undefined;
}

/** CORS_ORIGINS: 'off' (no cross-origin reads), 'any' (`*`), or a list of origins. */
export type CorsOrigins = { kind: 'off' } | { kind: 'any' } | { kind: 'listed'; origins: ReadonlySet<string> };

interface SettingSpec<K extends keyof Settings> {
  key: K;
  env: string;
  description: string;
  default: (partial: Partial<Settings>) => Settings[K];
  parse: (raw: string, env: string) => Settings[K];
}

function onOrOff(raw: string, env: string): boolean {
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(env, `must be on or off, got "${raw}"`);
  return raw === 'on';
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

/**
 * PUBLIC_URL goes into every advertised URL and into the log: credentials there would be
 * published (a docs audit saw them in /services and OAI-PMH baseURL), and a query or fragment
 * would break every URL built on it.
 */
function parsePublicUrl(raw: string, env: string): string {
  const value = parseUrl(raw, env);
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') throw new ConfigError(env, 'must not carry credentials: it is advertised to every client');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(env, 'must have no query or fragment: the node builds its endpoints\' URLs on it');
  return value;
}

const text = (raw: string): string => raw;

/** Whether a URL's host is this machine (localhost, 127/8, ::1): the only place plain http is allowed for OIDC. */
export function onLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || classifyAddress(host).kind === 'loopback';
}

/** OIDC Discovery 4.3: the issuer must match the provider's metadata exactly, so it is kept as given. */
function parseIssuer(raw: string, env: string): string {
  parseUrl(raw, env);
  const url = new URL(raw);
  if (url.protocol === 'http:' && !onLoopback(url)) throw new ConfigError(env, 'must use https (plain http only on loopback)');
  if (url.search || url.hash) throw new ConfigError(env, 'must not have a query or fragment (OIDC Core 1.2)');
  return raw;
}

/** The OIDC settings go together: a partial set is a mistake, not "OIDC off". */
function checkOidcTogether(settings: Settings): void {
  const group = [['OIDC_ISSUER', settings.oidcIssuer], ['OIDC_CLIENT_ID', settings.oidcClientId], ['OIDC_CLIENT_SECRET', settings.oidcClientSecret]] as const;
  if (group.every(([, value]) => value === undefined)) return;
  const missing = group.find(([, value]) => value === undefined);
  if (missing) throw new ConfigError(missing[0], `must be set with ${group.filter(([, value]) => value !== undefined).map(([env]) => env).join(' and ')} (sign-in at /auth)`);
}

/** A setting that is a whole number within bounds; `range` says which in the error. */
function wholeNumber(raw: string, env: string, bounds: { min?: number; max?: number }, range: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < (bounds.min ?? 0) || value > (bounds.max ?? Number.MAX_SAFE_INTEGER)) {
    throw new ConfigError(env, `must be a whole number ${range}, got "${raw}"`);
  }
  return value;
}

const MAX_SIGNATURE_WORKERS = 64;
/** The longest delay a Node timer takes (setTimeout, AbortSignal.timeout): 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One worker per core beyond two. While the node publishes, its event loop and the store (the
 * embedded store's process, or CouchDB on the same machine) each keep a core busy, and a worker
 * only pays for its messages and its own copy of the code when a core is left for it. Measured on
 * 2 cores (issue 19, CouchDB 3.5, 5,000 documents): proxy-signed publishing 1,318 documents/s on
 * the event loop against 942 with two workers, verified publishing 866 against 666.
 */
function defaultSignatureWorkers(): number {
  return Math.min(MAX_SIGNATURE_WORKERS, Math.max(0, os.availableParallelism() - 2));
}

const MAX_HEAVY_REQUESTS = 1024;
/**
 * Two per core: 4 on 2 cores, where `bench load` on CouchDB 3.5 served obtain by ID at 338 req/s
 * with 4 heavy requests at a time, 258 with 8 and 97 with no limit, the pages at the same rate
 * (src/http/request-slots.ts).
 */
function defaultHeavyRequestLimit(): number {
  return Math.min(MAX_HEAVY_REQUESTS, 2 * os.availableParallelism());
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * PUBLISH_MAX_INDEX_LAG by default: how far the view indexes may trail a bulk publish before
 * publishing waits for them. Unbounded, the first reads after a large publish waited for the rest
 * of the build (CouchDB 3.5 fixture: 49-136 s after 100,000 documents, about 20 minutes after
 * 1,000,000); bounded, no more than this many changes are left to index. Large enough that no
 * publish of up to 20,000 documents (issue 19's benchmark) meets it on either store.
 */
const DEFAULT_PUBLISH_MAX_INDEX_LAG = 20_000;

/**
 * From this PUBLISH_MAX_INDEX_LAG on the limit is a backstop, not a pace: publishing runs at the
 * store's speed until the indexes trail that far (how deps.ts wires the pacer and the warmer).
 */
export const PACING_BACKSTOP_FROM = 20_000;

/**
 * PUBLISH_CATCH_UP_INDEX_LAG by default. Every write paced this tightly, the first pages after a
 * bulk publish came within 0.2-0.3 s on both stores (README "After a bulk publish": 200 at 20k on
 * CouchDB, at 100k on the embedded store, where 1,000 left 2.3 s); as the catch-up pace after the
 * 20,000 backstop, 0.31 s (CouchDB) and 1.06 s (embedded) after 100,000 documents.
 */
const DEFAULT_PUBLISH_CATCH_UP_INDEX_LAG = 200;

export const SETTINGS = [
  { key: 'port', env: 'PORT', description: 'TCP port the node listens on (0 picks a free one)', default: () => 8080, parse: parsePort },
  { key: 'host', env: 'HOST', description: 'interface the node listens on', default: () => '127.0.0.1', parse: text },
  { key: 'trustProxy', env: 'TRUST_PROXY', description: 'how many reverse proxies stand in front of the node: the client address (what the sign-in throttle counts failures by) is then taken from X-Forwarded-For, that many entries from its end. 0: the socket\'s address, and X-Forwarded-For is ignored', default: () => 0, parse: (raw, env) => wholeNumber(raw, env, { max: 10 }, 'from 0 to 10') },
  { key: 'couchdbUrl', env: 'COUCHDB_URL', description: 'URL of an Apache CouchDB 3 server; credentials may be in the URL. Unset: the embedded store is started', default: () => undefined, parse: parseUrl },
  { key: 'couchdbUser', env: 'COUCHDB_USER', description: 'CouchDB user name, when not in COUCHDB_URL', default: () => undefined, parse: text },
  { key: 'couchdbPassword', env: 'COUCHDB_PASSWORD', description: 'CouchDB password, when not in COUCHDB_URL', default: () => undefined, parse: text },
  { key: 'dataDir', env: 'DATA_DIR', description: 'directory of the embedded store (LevelDB files and its admin credential)', default: () => './data', parse: text },
  { key: 'publicUrl', env: 'PUBLIC_URL', description: 'URL the node advertises in service descriptions and as OAI-PMH baseURL (default: http://HOST:PORT as bound; with HOST 0.0.0.0 or ::, loopback, and a start-up warning that it is needed)', default: () => undefined, parse: parsePublicUrl },
  { key: 'configPath', env: 'CONFIG', description: 'JSON file with the node, community, network, policy and service settings, or defaults for the default ones. Unset: the CONFIG an earlier start was given, kept in the node database (the defaults on a new store)', default: () => undefined, parse: text },
  { key: 'dbPrefix', env: 'DB_PREFIX', description: 'prefix of every database name, so several nodes can share one CouchDB', default: () => '', parse: (raw, env) => {
    if (!/^[a-z][a-z0-9_$()+/-]*$|^$/.test(raw)) throw new ConfigError(env, 'must start with a lower-case letter and use CouchDB database-name characters');
    return raw;
  } },
  { key: 'logLevel', env: 'LOG_LEVEL', description: `log level (${LOG_LEVELS.join(', ')})`, default: () => 'info', parse: (raw, env) => {
    if (!LOG_LEVELS.includes(raw)) throw new ConfigError(env, `must be one of ${LOG_LEVELS.join(', ')}`);
    return raw;
  } },
  { key: 'embeddedPort', env: 'EMBEDDED_COUCH_PORT', description: 'loopback port of the embedded store (0 picks a free one)', default: () => 0, parse: parsePort },
  { key: 'monitoringPort', env: 'MONITORING_PORT', description: 'loopback-only port serving /metrics and /dashboard without credentials (0 picks a free one). Unset: only on PORT, for network_admin accounts', default: () => undefined, parse: parsePort },
  { key: 'viewWaitMs', env: 'VIEW_WAIT_MS', description: 'longest a request waits for a view index still being built, in milliseconds, before a 503 with Retry-After', default: () => 20000, parse: (raw, env) => {
    // A Node timer waits at most 2^31-1 ms: a longer one fires at once, and every view read answered 503.
    return wholeNumber(raw, env, { min: 100, max: MAX_TIMER_MS }, `of milliseconds, from 100 to ${MAX_TIMER_MS} (about 24.8 days)`);
  } },
  { key: 'indexWarming', env: 'INDEX_WARMING', description: 'keep view indexes current as documents arrive, so no request waits for an index build: on or off', default: () => true, parse: onOrOff },
  { key: 'publishMaxIndexLag', env: 'PUBLISH_MAX_INDEX_LAG', description: `answer a publish request only once the view indexes trail the database by at most this many documents, so reads after a bulk publish answer at once (the publish then runs at the index rate): a whole number, at least 100, or off. From ${PACING_BACKSTOP_FROM} on it is a backstop: a bulk publish runs at the store's speed until its indexes trail that far, so the first reads after it never wait for more than that. Default: ${DEFAULT_PUBLISH_MAX_INDEX_LAG} with INDEX_WARMING on, off without`, default: (partial) => (partial.indexWarming === true ? DEFAULT_PUBLISH_MAX_INDEX_LAG : undefined), parse: (raw, env) => {
    return raw === 'off' ? undefined : wholeNumber(raw, env, { min: 100 }, 'of documents, at least 100, or off');
  } },
  { key: 'publishCatchUpIndexLag', env: 'PUBLISH_CATCH_UP_INDEX_LAG', description: `when PUBLISH_MAX_INDEX_LAG is a backstop (${PACING_BACKSTOP_FROM} or more): once a bulk publish has met it, pace the rest of that publish to this many unindexed documents, so that it ends with the indexes nearly current and the first reads after it answer at once; publishing runs at the store's speed again once the indexes have caught up. A whole number below PUBLISH_MAX_INDEX_LAG, or off (the rest of the publish is held at the backstop only). Default: ${DEFAULT_PUBLISH_CATCH_UP_INDEX_LAG}`, default: (partial) => (partial.publishMaxIndexLag !== undefined && partial.publishMaxIndexLag > DEFAULT_PUBLISH_CATCH_UP_INDEX_LAG ? DEFAULT_PUBLISH_CATCH_UP_INDEX_LAG : undefined), parse: (raw, env) => {
    return raw === 'off' ? undefined : wholeNumber(raw, env, { min: 0 }, 'of documents, or off');
  } },
  { key: 'compressionLevel', env: 'COMPRESSION_LEVEL', description: 'zlib level of gzip and deflate answers, 1 (fastest, the default) to 9 (smallest): each level above 1 costs node CPU on every compressed page for a few per cent fewer bytes', default: () => 1, parse: (raw, env) => {
    return wholeNumber(raw, env, { min: 1, max: 9 }, 'from 1 to 9');
  } },
  { key: 'corsOrigins', env: 'CORS_ORIGINS', description: 'web pages of these origins may read the public read services (obtain, harvest, OAI-PMH, slice and the node endpoints) from a browser: off (the default, as CouchDB\'s enable_cors), * for any origin, or a comma-separated list such as https://app.example.org. Never with credentials: publishing, deleting and distributing stay same-origin', default: () => ({ kind: 'off' }), parse: parseCorsOrigins },
  { key: 'readAhead', env: 'READ_AHEAD', description: 'read the next page of a harvest, OAI-PMH or obtain list a client follows while the node sends this one: on, or off when several node processes serve one CouchDB behind a balancer that sends a harvester\'s requests to any of them (the page read ahead by one process is then mostly asked of another)', default: () => true, parse: onOrOff },
  { key: 'retireDesignDocs', env: 'RETIRE_DESIGN_DOCS', description: 'delete at start-up the design docs an earlier version pushed and this one no longer has: on, or off while processes of the earlier version still serve the same CouchDB (a rolling upgrade), which still read them', default: () => true, parse: onOrOff },
  { key: 'incomingRetryMs', env: 'INCOMING_RETRY_MS', description: 'when a document arriving by distribution is refused for a cause that may pass (a signer\'s key location did not answer), it is kept and tried again after this many milliseconds, each later try waiting twice as long, up to an hour', default: () => 60000, parse: (raw, env) => {
    return wholeNumber(raw, env, { min: 100 }, 'of milliseconds, at least 100');
  } },
  { key: 'incomingRetryLifetimeMs', env: 'INCOMING_RETRY_LIFETIME_MS', description: 'how long such a document is tried again, in milliseconds from its arrival, before it is given up (logged and counted refused). Default: 5 days', default: () => 5 * 24 * 3600 * 1000, parse: (raw, env) => {
    return wholeNumber(raw, env, { min: 100 }, 'of milliseconds, at least 100');
  } },
  { key: 'signatureWorkers', env: 'SIGNATURE_WORKERS', description: 'worker threads for proxy signing and signature verification (0: on the event loop, where OpenPGP still hands the cryptography to libuv threads). Default: the cores beyond two', default: defaultSignatureWorkers, parse: (raw, env) => {
    return wholeNumber(raw, env, { max: MAX_SIGNATURE_WORKERS }, `0-${MAX_SIGNATURE_WORKERS}`);
  } },
  { key: 'heavyRequestLimit', env: 'HEAVY_REQUEST_LIMIT', description: `list pages (slice, JSON harvest, OAI-PMH, obtain without an ID) and publish batches this process handles at once; the others wait their turn, for at most VIEW_WAIT_MS, then are answered 503 with Retry-After. Light requests (obtain by ID, /status) never wait for them. A whole number 1-${MAX_HEAVY_REQUESTS}, or off. Default: two per core`, default: defaultHeavyRequestLimit, parse: (raw, env) => {
    return raw === 'off' ? undefined : wholeNumber(raw, env, { min: 1, max: MAX_HEAVY_REQUESTS }, `1-${MAX_HEAVY_REQUESTS} or off`);
  } },
  { key: 'oidcIssuer', env: 'OIDC_ISSUER', description: 'OpenID Connect issuer URL for sign-in at /auth (https; http only on loopback). Unset: /auth says accounts are not managed on the web', default: () => undefined, parse: parseIssuer },
  { key: 'oidcClientId', env: 'OIDC_CLIENT_ID', description: 'client id of this node at the OpenID Connect provider', default: () => undefined, parse: text },
  { key: 'oidcClientSecret', env: 'OIDC_CLIENT_SECRET', description: 'client secret of this node at the OpenID Connect provider', default: () => undefined, parse: text },
] as const satisfies readonly SettingSpec<keyof Settings>[];

/** An origin is scheme://host[:port], nothing more (RFC 6454 §6.1, as a browser sends it in Origin). */
function parseCorsOrigins(raw: string, env: string): CorsOrigins {
  const value = raw.trim();
  if (value === 'off') return { kind: 'off' };
  if (value === '*') return { kind: 'any' };
  const origins = new Set<string>();
  for (const entry of value.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(env, `${entry} is not an origin (scheme://host[:port]); give off, *, or a comma-separated list of origins`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(env, `${entry} is not an origin: give only http(s)://host[:port], without a path, query or credentials`);
    }
    origins.add(url.origin);
  }
  if (origins.size === 0) throw new ConfigError(env, 'give off, *, or a comma-separated list of origins');
  return { kind: 'listed', origins };
}

/** Held publishing waits for passes of the index warmer: without it nothing would bring the embedded store's indexes up. */
function checkPacingHasWarming(settings: Settings): void {
  if (settings.publishMaxIndexLag !== undefined && !settings.indexWarming) {
    throw new ConfigError('PUBLISH_MAX_INDEX_LAG', 'needs INDEX_WARMING=on: the index warmer is what brings the indexes up to the writes');
  }
}

/** A catch-up pace is tighter than the limit it follows. */
function checkCatchUpBelowLimit(settings: Settings): void {
  const { publishMaxIndexLag: limit, publishCatchUpIndexLag: catchUp } = settings;
  if (catchUp === undefined) return;
  if (limit === undefined) throw new ConfigError('PUBLISH_CATCH_UP_INDEX_LAG', 'needs PUBLISH_MAX_INDEX_LAG: it paces a publish that met that limit');
  if (catchUp >= limit) throw new ConfigError('PUBLISH_CATCH_UP_INDEX_LAG', `must be below PUBLISH_MAX_INDEX_LAG (${limit})`);
}

/** Reads every setting from the environment; unset or empty values take their defaults, in table order. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const partial: Partial<Record<keyof Settings, unknown>> = {};
  for (const spec of SETTINGS as readonly SettingSpec<keyof Settings>[]) {
    const raw = env[spec.env];
    partial[spec.key] = raw === undefined || raw === '' ? spec.default(partial as Partial<Settings>) : spec.parse(raw, spec.env);
  }
  checkOidcTogether(partial as unknown as Settings);
  checkPacingHasWarming(partial as unknown as Settings);
  checkCatchUpBelowLimit(partial as unknown as Settings);
  return partial as unknown as Settings;
}
