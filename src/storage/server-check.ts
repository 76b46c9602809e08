/**
 * Start-up check of the configured Apache CouchDB: the version the node needs, and the settings
 * that would make a valid request fail later with a less readable error. A missing requirement
 * stops the node; a risky setting is a warning naming the setting and the value to use
 * (docs/couchdb.md says why each matters). The embedded store is not checked: the node starts it
 * with what it needs.
 */
import { storeStatusOf, type Couch } from './couch.js';

/** CouchDB 3.x defaults (docs.couchdb.org "Configuration"), for settings a server leaves unset. */
const DEFAULTS = {
  maxDocumentSize: 8_000_000, // [couchdb] max_document_size
  maxHttpRequestSize: 4_294_967_296, // [chttpd] max_http_request_size
  startupJitterMs: 5000, // [replicator] startup_jitter
} as const;

export interface ServerSizes {
  /** The policy's largest accepted document (bytes of JSON). */
  maxDocumentSize: number;
  /** The largest /publish request body (publish service_data.msg_size_limit). */
  maxRequestSize: number;
}

export interface ServerRequirements {
  /**
   * Asked once the node is known to be a server admin: without CONFIG they come from the
   * configuration stored in the node's databases, which only an admin's credentials may read.
   */
  sizes: () => Promise<ServerSizes>;
  /** Whether the node was given a CouchDB user (COUCHDB_USER, or one in COUCHDB_URL). */
  credentials: boolean;
}

/** What to set when a configured CouchDB was given no user: the messages that meet it say this. */
export const NO_COUCHDB_CREDENTIALS = 'no credentials given: set COUCHDB_USER/COUCHDB_PASSWORD or put them in COUCHDB_URL';

export interface ServerCheck {
  version: string;
  /** Readable lines, one per setting that should change. */
  warnings: string[];
  /** Settings that cost time, not correctness: one line each, for the log at info. */
  notes: string[];
  /** A requirement the node cannot run without (start-up stops), or undefined. */
  fatal?: string;
}

interface Welcome { couchdb?: string; version?: string }

type ConfigSection = Record<string, string>;

type Read<T> = { ok: true; body: T } | { ok: false; status: number | undefined };

async function read<T>(couch: Couch, path: string): Promise<Read<T>> {
  try {
    return { ok: true, body: await couch.request({ path }) as T };
  } catch (error) {
    return { ok: false, status: storeStatusOf(error) };
  }
}

const statusOf = (answer: Read<unknown>): number | undefined => (answer.ok ? undefined : answer.status);

interface Session { userCtx?: { name?: string | null; roles?: unknown } }
interface Membership { cluster_nodes?: unknown }

/** System databases a CouchDB creates once it is set up (single_node, or a finished cluster setup). */
const SYSTEM_DATABASES = ['_users', '_replicator'] as const;

/**
 * `[couchdb] single_node` (docs/couchdb.md): a server that is neither a single node nor a set-up
 * cluster never creates `_users` and `_replicator`. The node itself needs neither (its user is a
 * server admin, its replications are one-shot `_replicate` calls), but CouchDB then logs a
 * `database_does_not_exist` error for `_users` every few seconds, and only server admins can sign in.
 */
async function setupWarning(couch: Couch, singleNode: string | undefined): Promise<string | undefined> {
  if (singleNode === 'true') return undefined;
  const missing: string[] = [];
  for (const db of SYSTEM_DATABASES) {
    const answer = await read(couch, encodeURIComponent(db));
    if (!answer.ok && answer.status === 404) missing.push(db);
  }
  if (missing.length === 0) return undefined;
  const membership = await read<Membership>(couch, '_membership');
  const members = membership.ok && Array.isArray(membership.body.cluster_nodes) ? membership.body.cluster_nodes.length : 0;
  const lacking = `${missing.join(' and ')} ${missing.length > 1 ? 'do' : 'does'} not exist`;
  return members > 1
    ? `[couchdb] single_node is not true and the cluster setup of these ${members} members was not finished: ${lacking}; finish it with POST /_cluster_setup {"action":"finish_cluster"} (docs/couchdb.md)`
    : `[couchdb] single_node is ${singleNode ?? 'unset'} and /_membership lists no other cluster member: this CouchDB was set up neither as a single node nor as a cluster, so ${lacking} (CouchDB logs an error about _users every few seconds, and only server admins can sign in); set [couchdb] single_node = true and restart CouchDB (docs/couchdb.md)`;
}

const numberOr = (raw: string | undefined, fallback: number): number => {
  const value = Number(raw);
  return raw !== undefined && Number.isFinite(value) ? value : fallback;
};

/** Checks a CouchDB server; undefined for a server that is not Apache CouchDB (the embedded store). */
export async function checkCouchServer(couch: Couch, requirements: ServerRequirements): Promise<ServerCheck | undefined> {
  const welcome = await couch.request({ path: '' }) as Welcome;
  if (welcome.couchdb === undefined || typeof welcome.version !== 'string') return undefined;
  const version = welcome.version;
  const major = Number(version.split('.')[0]);
  if (!(major >= 3)) {
    return { version, warnings: [], notes: [], fatal: `CouchDB ${version} is not supported: the node needs Apache CouchDB 3.x (docs/couchdb.md)` };
  }
  const warnings: string[] = [];
  const notes: string[] = [];
  // Only a server admin may read the configuration, and (with CouchDB 3's defaults) list and
  // create databases, which bootstrap does next: /_session names the roles the user has.
  const session = await read<Session>(couch, '_session');
  const roles = session.ok ? session.body.userCtx?.roles : undefined;
  if (Array.isArray(roles) && !roles.includes('_admin')) {
    // Given no user, the node is anonymous to CouchDB: no user of CouchDB's is at fault, and
    // bootstrap would only be refused next.
    if (!requirements.credentials) return { version, warnings, notes, fatal: `${NO_COUCHDB_CREDENTIALS} (CouchDB 3 lets only server admins list and create the node's databases)` };
    const name = session.ok ? session.body.userCtx?.name : undefined;
    warnings.push(`the node's CouchDB user ${name ? `"${name}" ` : ''}is not a server admin (/_session lists no _admin role): settings were not checked, and CouchDB 3 lets only server admins list and create the node's databases (docs/couchdb.md)`);
    return { version, warnings, notes };
  }
  const section = (name: string): Promise<Read<ConfigSection>> => read<ConfigSection>(couch, `_node/_local/_config/${name}`);
  const [couchdbSection, chttpdSection, replicatorSection] = await Promise.all([section('couchdb'), section('chttpd'), section('replicator')]);
  if (!couchdbSection.ok || !chttpdSection.ok) {
    const status = statusOf(couchdbSection) ?? statusOf(chttpdSection);
    warnings.push(`cannot read the CouchDB configuration (GET /_node/_local/_config answered ${status ?? 'nothing'}; a proxy in front of CouchDB?): settings were not checked (docs/couchdb.md)`);
    return { version, warnings, notes };
  }
  const couchdb = couchdbSection.body;
  const chttpd = chttpdSection.body;
  const needs = await requirements.sizes();
  const maxDocumentSize = numberOr(couchdb.max_document_size, DEFAULTS.maxDocumentSize);
  if (maxDocumentSize < needs.maxDocumentSize) {
    warnings.push(`[couchdb] max_document_size is ${maxDocumentSize} bytes, below the policy's max_document_size ${needs.maxDocumentSize}: accepted documents would be refused by CouchDB; set it to at least ${needs.maxDocumentSize}`);
  }
  const maxHttpRequestSize = numberOr(chttpd.max_http_request_size, DEFAULTS.maxHttpRequestSize);
  if (maxHttpRequestSize < needs.maxRequestSize) {
    warnings.push(`[chttpd] max_http_request_size is ${maxHttpRequestSize} bytes, below publish msg_size_limit ${needs.maxRequestSize}: a full publish batch would be refused by CouchDB; set it to at least ${needs.maxRequestSize}`);
  }
  if (chttpd.require_valid_user !== 'true') {
    warnings.push('[chttpd] require_valid_user is not true: anonymous clients can reach CouchDB\'s own endpoints; set it to true (the node always authenticates)');
  }
  const setup = await setupWarning(couch, couchdb.single_node);
  if (setup) warnings.push(setup);
  // Each one-shot job of /distribute waits a random 0 to startup_jitter ms before it starts
  // (docs/couchdb.md: 0.7-5.1 s for a two-document _replicate with the default, 0.33-0.41 s with 0).
  const startupJitter = replicatorSection.ok ? numberOr(replicatorSection.body.startup_jitter, DEFAULTS.startupJitterMs) : undefined;
  if (startupJitter !== undefined && startupJitter > 0) {
    notes.push(`[replicator] startup_jitter is ${startupJitter} ms: each /distribute waits a random 0 to ${startupJitter} ms before its first document moves; 0 suits a CouchDB whose replications are the node's (docs/couchdb.md)`);
  }
  return { version, warnings, notes };
}
