/**
 * Start-up check of the configured Apache CouchDB: the version the node needs, and the settings
 * that would make a valid request fail later with a less readable error. A missing requirement
 * stops the node; a risky setting is a warning naming the setting and the value to use
 * (docs/couchdb.md says why each matters). The embedded store is not checked: the node starts it
 * with what it needs.
 */
import type { Couch } from './couch.js';

/** CouchDB 3.x defaults (docs.couchdb.org "Configuration"), for settings a server leaves unset. */
const DEFAULTS = {
  maxDocumentSize: 8_000_000, // [couchdb] max_document_size
  maxHttpRequestSize: 4_294_967_296, // [chttpd] max_http_request_size
} as const;

export interface ServerRequirements {
  /** The policy's largest accepted document (bytes of JSON). */
  maxDocumentSize: number;
  /** The largest /publish request body (publish service_data.msg_size_limit). */
  maxRequestSize: number;
}

export interface ServerCheck {
  version: string;
  /** Readable lines, one per setting that should change. */
  warnings: string[];
  /** A requirement the node cannot run without (start-up stops), or undefined. */
  fatal?: string;
}

interface Welcome { couchdb?: string; version?: string }

type ConfigSection = Record<string, string>;

async function section(couch: Couch, name: string): Promise<ConfigSection | undefined> {
  try {
    return await couch.request({ path: `_node/_local/_config/${name}` }) as ConfigSection;
  } catch {
    return undefined; // not a server admin, or a proxy in front: the checks that need it are skipped
  }
}

const numberOr = (raw: string | undefined, fallback: number): number => {
  const value = Number(raw);
  return raw !== undefined && Number.isFinite(value) ? value : fallback;
};

/** Checks a CouchDB server; undefined for a server that is not Apache CouchDB (the embedded store). */
export async function checkCouchServer(couch: Couch, needs: ServerRequirements): Promise<ServerCheck | undefined> {
  const welcome = await couch.request({ path: '' }) as Welcome;
  if (welcome.couchdb === undefined || typeof welcome.version !== 'string') return undefined;
  const version = welcome.version;
  const major = Number(version.split('.')[0]);
  if (!(major >= 3)) {
    return { version, warnings: [], fatal: `CouchDB ${version} is not supported: the node needs Apache CouchDB 3.x (docs/couchdb.md)` };
  }
  const warnings: string[] = [];
  const [couchdb, chttpd] = await Promise.all([section(couch, 'couchdb'), section(couch, 'chttpd')]);
  if (!couchdb || !chttpd) {
    warnings.push('cannot read the CouchDB configuration (the node\'s CouchDB user is not a server admin): settings were not checked (docs/couchdb.md)');
    return { version, warnings };
  }
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
  return { version, warnings };
}
