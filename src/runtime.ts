/**
 * Starting and stopping a node: store (configured CouchDB, or the embedded one started and
 * supervised here), bootstrap, app, listen. main.ts and the tests both use startNode().
 */
import { answerClientError } from './http/client-error.js';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { PROJECT_ROOT } from './config/project-root.js';
import { CONFIG_DEFAULTS, ConfigError, defaultNodeConfig, validateNodeConfig, type AppConfig, type NodeConfig, type StartConfig } from './config/index.js';
import { EmbeddedCouch } from './embedded/supervisor.js';
import { embeddedCredentials } from './embedded/credentials.js';
import { advertisedUrl, boundUrl } from './net/advertised-url.js';
import { askStore, connectCouch, hasCredentials, redactedUrl, storeStatusOf, type Couch, type CouchTarget } from './storage/couch.js';
import { databaseNames, type DatabaseNames } from './storage/databases.js';
import { loadDesignDocs } from './storage/design-docs.js';
import { bootstrap, type BootstrapResult } from './storage/bootstrap.js';
import { NodeRepository, type KeptConfig } from './storage/node-repository.js';
import { checkCouchServer, NO_COUCHDB_CREDENTIALS, type ServerSizes } from './storage/server-check.js';
import { buildDeps, type Deps } from './deps.js';
import { createApp } from './app.js';
import { createStartingApp } from './starting-app.js';
import { storeUnavailable } from './errors/app-error.js';
import { generateNodeKeys } from './domain/node-keys.js';
import { listenMonitoring } from './monitoring-app.js';
import { namingSetting } from './errors/exit-codes.js';
import { refuseDataDirInUse } from './embedded/data-dir-in-use.js';
import { processConnectionLimit } from './http/connection-limit.js';
import { boundFirstRequest } from './http/first-request-timeout.js';

export { PROJECT_ROOT } from './config/project-root.js';

export interface RunningNode {
  url: string;
  publicUrl: string;
  server: http.Server;
  couch: Couch;
  names: DatabaseNames;
  deps: Deps;
  embedded: EmbeddedCouch | undefined;
  bootstrap: BootstrapResult;
  /** The loopback-only monitoring listener, when MONITORING_PORT is set. */
  monitoringUrl: string | undefined;
  close(): Promise<void>;
}

/** Which store start-up waits for, named in its messages (never with credentials). */
interface StoreToWait { couch: Couch; url: string; configured: boolean; credentials: boolean }

async function waitForStore(store: StoreToWait, logger: Logger, timeoutMs: number): Promise<void> {
  const url = redactedUrl(store.url);
  const name = store.configured ? `CouchDB at ${url} (COUCHDB_URL)` : `the embedded store at ${url}`;
  const deadline = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await askStore(store.couch);
      return;
    } catch (error) {
      const status = storeStatusOf(error);
      if (status === 401 || status === 403) {
        throw new Error(store.credentials ? `CouchDB at ${url} refused the node's credentials (COUCHDB_URL / COUCHDB_USER / COUCHDB_PASSWORD)` : `${NO_COUCHDB_CREDENTIALS} (CouchDB at ${url} answered ${status})`, { cause: error });
      }
      if (Date.now() > deadline) throw storeUnavailable(`${name} did not answer within ${timeoutMs / 1000} s`, { cause: error });
      logger.warn({ store: url, retryInMs: delay }, store.configured ? 'waiting for CouchDB' : 'waiting for the embedded store');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Version and settings of a configured CouchDB (docs/couchdb.md): stops on a version the node cannot use. */
async function checkServer(couch: Couch, nodeConfig: () => Promise<NodeConfig>, logger: Logger, credentials: boolean): Promise<void> {
  const sizes = async (): Promise<ServerSizes> => {
    const node = await nodeConfig();
    const msgSizeLimit = Number(node.services.publish.service_data.msg_size_limit);
    return { maxDocumentSize: node.policy.max_document_size, maxRequestSize: Number.isFinite(msgSizeLimit) ? msgSizeLimit : 0 };
  };
  const check = await checkCouchServer(couch, { sizes, credentials });
  if (!check) return;
  if (check.fatal) throw new Error(check.fatal);
  for (const warning of check.warnings) logger.warn({ couchdbVersion: check.version }, warning);
  for (const note of check.notes) logger.info({ couchdbVersion: check.version }, note);
  logger.info({ couchdbVersion: check.version }, 'CouchDB checked');
}

/**
 * The node configuration a start applies, and the kept CONFIG it came from when CONFIG is unset
 * (bootstrap checks it: kept-config.ts). `keepAsGiven`: what to keep as if CONFIG had given it.
 */
interface AppliedConfig { node: NodeConfig; kept?: KeptConfig; keepAsGiven?: Record<string, unknown> }

/** Where a ConfigError says a kept CONFIG this version cannot use comes from, and what replaces it. */
const KEPT_CONFIG_SOURCE = 'the CONFIG an earlier start was given, kept in the node database (applied when CONFIG is unset; CONFIG=FILE or CONFIG=defaults replaces it) ';

/**
 * The node configuration this start applies (README "Configuration"): what CONFIG gives; without
 * CONFIG, the CONFIG an earlier start was given (kept as written, completed by this version's
 * defaults), so that a restart does not reset what the operator configured while a default the
 * operator never set still follows the version running; on a store no node has started on, the
 * defaults. A store whose node started under a version that kept no CONFIG gets the defaults, as
 * every start of that version did, with a warning saying how to keep a CONFIG from now on.
 */
async function nodeConfigOf(start: StartConfig, couch: Couch, names: DatabaseNames, logger: Logger): Promise<AppliedConfig> {
  if (start.given) {
    if (start.settings.configPath === CONFIG_DEFAULTS) logger.info('CONFIG=defaults: the default configuration applies, and later starts without CONFIG keep it');
    return { node: start.given.node };
  }
  const nodes = new NodeRepository(couch, names);
  const kept = await nodes.keptConfig();
  if (kept) {
    logger.info('CONFIG is unset: the node applies the CONFIG an earlier start was given (kept in the node database); start it with CONFIG=FILE to change it, or CONFIG=defaults to reset it to the defaults');
    return { node: validateNodeConfig(kept.config, KEPT_CONFIG_SOURCE), kept };
  }
  if (await nodes.hasStarted()) {
    logger.warn('CONFIG is unset and this store keeps no CONFIG of an earlier start (versions before this one kept none): the defaults apply, as they did then; start once with CONFIG=FILE and later starts without CONFIG keep it');
    return { node: defaultNodeConfig() };
  }
  // Kept as CONFIG=defaults keeps them: a later start without CONFIG then knows this store was
  // started by a version that keeps a CONFIG, and does not take it for an earlier version's (every
  // start without CONFIG on a store a first start without CONFIG made was warned so: an audit).
  logger.info('CONFIG is unset and no node has started on this store: the default configuration applies, and later starts without CONFIG keep it (CONFIG=FILE gives another)');
  return { node: defaultNodeConfig(), keepAsGiven: {} };
}

/** Caps the connections held at once (http/connection-limit.ts); a refusal is logged at most once a minute. */
function limitConnections(server: http.Server, logger: Logger): void {
  const limit = processConnectionLimit();
  if (limit === undefined) return;
  server.maxConnections = limit;
  let lastWarned = 0;
  let dropped = 0;
  server.on('drop', () => {
    dropped += 1;
    if (Date.now() - lastWarned < 60_000) return;
    lastWarned = Date.now();
    logger.warn({ maxConnections: limit, dropped }, 'connections refused: the node holds as many as its open-files limit allows (half of it, for the store\'s sockets); raise the limit (ulimit -n) or put a proxy with a connection limit in front');
    dropped = 0;
  });
}

/** The store start-up connects to: the configured CouchDB, or the embedded one, started here. */
async function openStore(settings: StartConfig['settings'], logger: Logger): Promise<{ target: CouchTarget; embedded?: EmbeddedCouch }> {
  if (settings.couchdbUrl) {
    logger.info({ couchdb: redactedUrl(settings.couchdbUrl) }, 'using the configured CouchDB');
    return { target: { url: settings.couchdbUrl, user: settings.couchdbUser, password: settings.couchdbPassword } };
  }
  const dataDir = path.resolve(settings.dataDir);
  const credentials = embeddedCredentials(dataDir);
  await refuseDataDirInUse(dataDir, credentials);
  const embedded = new EmbeddedCouch({ dataDir, ...credentials, logger, port: settings.embeddedPort });
  const target = { url: await embedded.start(), ...credentials };
  try {
    // Tools (npm run account) find the running store here; LevelDB allows one process only.
    fs.writeFileSync(path.join(dataDir, 'embedded-store.json'), JSON.stringify({ url: embedded.url }), { mode: 0o600 });
  } catch (error) {
    // A start that fails here leaves no store child behind to hold the LevelDB lock.
    await embedded.stop();
    throw error;
  }
  return { target, embedded };
}

/**
 * The node's HTTP server, answering through whatever handler `route` last set: the socket is
 * bound before the store is ready, so PUBLIC_URL can default to the bound address (PORT=0 in
 * tests), and until bootstrap completes the node answers 503 (starting-app.ts).
 */
function nodeServer(logger: Logger): { server: http.Server; route(handler: http.RequestListener): void } {
  let handler: http.RequestListener | undefined;
  // Idle keep-alive connections stay open for a minute, not Node's 5 s: clients that pool
  // connections, such as CouchDB's replicator between two distributions, reuse an idle one and
  // fail ("sel_conn_closed") when the node has closed it meanwhile. headersTimeout must exceed it.
  // A request must arrive whole within two minutes (Node's default, five, let slowly sent bodies
  // hold connections that long): a 10 MiB publish batch at 1 Mbit/s takes 80 s.
  // Timeouts are checked every 5 s, not Node's 30 s: a request's headers are cut 66-71 s after they began.
  const server = http.createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 120_000, connectionsCheckingInterval: 5_000 }, (req, res) => handler?.(req, res));
  server.on('clientError', answerClientError);
  limitConnections(server, logger);
  boundFirstRequest(server);
  return { server, route: (next) => { handler = next; } };
}

/** Listens on HOST:PORT; an address or name HOST cannot have is a ConfigError naming HOST, anything else names PORT. */
function listen(server: http.Server, settings: StartConfig['settings']): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL'].includes(error.code ?? '')) reject(new ConfigError('HOST', `cannot listen on ${settings.host}: ${error.code === 'EADDRNOTAVAIL' ? 'not an address of this machine' : 'the name does not resolve'}`));
      else reject(namingSetting(error, 'PORT'));
    });
    server.listen(settings.port, settings.host, () => resolve());
  });
}

/** The background work of a started node, in the order it starts. */
function startBackgroundWork(deps: Deps, settings: StartConfig['settings']): void {
  // The first /status of the process finds a live count already, unless its view is being built (issue 14, defect 8).
  void deps.nodeInfo.prime();
  // Inbound distribution follows the incoming database; the scheduler triggers /distribute.
  deps.distribution.follower.start();
  deps.distribution.retrier.start();
  deps.distribution.scheduler.start();
  // Indexes are kept current as documents arrive, so no request pays for a build (issue 15).
  if (settings.indexWarming) deps.warmer.start();
}

/** What a start has brought up so far; stopNode stops what is there. */
interface NodeParts { server: http.Server; embedded?: EmbeddedCouch; deps?: Deps; monitoring?: http.Server }

/**
 * Stops a node, or what a failed start brought up (every stop is a no-op for work never
 * started): stop accepting and let in-flight requests finish (idle keep-alive sockets are closed
 * now, busy ones after their response), then the background work, then the store.
 */
async function stopNode({ server, embedded, deps, monitoring }: NodeParts): Promise<void> {
  await deps?.distribution.scheduler.stop();
  deps?.pacing?.release(); // held publish answers go now: their documents are stored
  monitoring?.close();
  monitoring?.closeAllConnections();
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 10000);
    // A keep-alive connection whose request was in flight goes idle once answered; Node's
    // close() only closed the connections idle when it was called, so close those as they
    // come, or the process waits out the 10 s for every client that keeps its connection.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => { clearTimeout(force); clearInterval(idle); resolve(); });
    server.closeIdleConnections();
  });
  if (deps) {
    await deps.distribution.follower.stop();
    await deps.distribution.retrier.stop();
    await deps.warmer.stop();
    await Promise.all(deps.followed.map((feed) => feed.stop()));
    await deps.distribution.service.idle();
    await deps.signatures.close(); // its worker threads would keep the process alive
  }
  await embedded?.stop();
}

/**
 * A description's `service_https` says the service requires HTTPS (spec "Service description
 * document"). The node does not terminate TLS (a reverse proxy in front does), so it can say so
 * truly only where clients reach it at an https PUBLIC_URL, which its service_endpoint then
 * names: with an http one the description contradicted itself, and plain HTTP was served (an
 * audit's finding).
 */
function checkHttpsRequirement(node: NodeConfig, publicUrl: string, source: string): void {
  if (publicUrl.startsWith('https:')) return;
  for (const [key, service] of Object.entries(node.services)) {
    if (service.service_auth.service_https) throw new ConfigError(`${source}/services/${key}/service_auth/service_https`, `true needs an https PUBLIC_URL (the endpoint clients reach through the TLS proxy in front of the node), got ${publicUrl}`);
  }
}

export async function startNode(startConfig: StartConfig, logger: Logger): Promise<RunningNode> {
  const { settings } = startConfig;
  const { target, embedded } = await openStore(settings, logger);
  const { server, route } = nodeServer(logger);
  const parts: NodeParts = { server, ...(embedded ? { embedded } : {}) };
  try {
    await listen(server, settings);
    const address = server.address() as AddressInfo;
    const url = boundUrl(settings.host, address.port);
    const { publicUrl, warning: publicUrlWarning } = advertisedUrl(settings.host, address.port, settings.publicUrl);
    if (publicUrlWarning) logger.warn({ host: settings.host }, publicUrlWarning);
    // Without CONFIG the node's name is known once the store is read: until then, the default one.
    route(createStartingApp(logger, (startConfig.given?.node ?? defaultNodeConfig()).node.node_name, publicUrl).callback());
    const couch = connectCouch(target);
    // The embedded store's credential is always there.
    const credentials = hasCredentials(target);
    await waitForStore({ couch, url: target.url, configured: settings.couchdbUrl !== undefined, credentials }, logger, 30000);
    const names = databaseNames(settings.dbPrefix);
    // Read once, after the server check has found credentials that may read it (CouchDB) or at once (the embedded store).
    let applied: Promise<AppliedConfig> | undefined;
    const resolveApplied = (): Promise<AppliedConfig> => (applied ??= nodeConfigOf(startConfig, couch, names, logger));
    if (settings.couchdbUrl) await checkServer(couch, async () => (await resolveApplied()).node, logger, credentials);
    const { node: nodeConfig, kept, keepAsGiven } = await resolveApplied();
    const config: AppConfig = { settings, node: nodeConfig };
    checkHttpsRequirement(nodeConfig, publicUrl, settings.configPath ? `CONFIG ${settings.configPath} ` : KEPT_CONFIG_SOURCE);
    if (!startConfig.given) route(createStartingApp(logger, config.node.node.node_name, publicUrl).callback());
    const designDocs = loadDesignDocs(path.join(PROJECT_ROOT, 'design-docs'));
    const result = await bootstrap({
      couch, names, config: config.node, given: startConfig.given?.given ?? keepAsGiven, kept, publicUrl, logger, designDocs,
      generateKeys: generateNodeKeys, retireDesignDocs: settings.retireDesignDocs,
    });
    const deps = buildDeps({ config, logger, couch, names, publicUrl, projectRoot: PROJECT_ROOT, tokenSecret: result.tokenSecret, designDocs, store: embedded });
    parts.deps = deps;
    // The monitoring port is bound before any background loop starts: when it is in use the start
    // fails, and nothing is left running to keep the process alive (it exits with EXIT.portInUse).
    const monitoring = settings.monitoringPort === undefined ? undefined : await listenMonitoring(deps, settings.monitoringPort);
    if (monitoring) parts.monitoring = monitoring.server;
    // The per-request documents are followed from now on (src/storage/followed-documents.ts).
    for (const feed of deps.followed) feed.start();
    // The embedded store is this process's alone: a distribution run it finds in progress is a dead process's.
    if (embedded) await deps.distribution.service.releaseDeadRun();
    route(createApp(deps).callback());
    startBackgroundWork(deps, settings);
    logger.info({ url, publicUrl, monitoringUrl: monitoring?.url }, 'node listening');
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => (closing ??= stopNode(parts).then(() => logger.info('node stopped')));
    return { url, publicUrl, server, couch, names, deps, embedded, bootstrap: result, monitoringUrl: monitoring?.url, close };
  } catch (error) {
    // A start that fails after the monitoring port or the followed documents' feeds started
    // (e.g. releasing a dead run) stops them too: left running they keep the process alive.
    await stopNode(parts);
    throw error;
  }
}
