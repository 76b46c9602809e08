/**
 * Node, community and network documents (spec "Other node documents referenced" and the
 * service descriptions). Documents changed while the node runs (a connection added, a policy
 * changed) take effect without a restart, in every node process: the descriptions read on every
 * request come from FollowedDocuments (kept true by each database's _changes feed) when the node
 * runs with them, and from CouchDB on every call otherwise (tools, bootstrap).
 */
import type { Logger } from 'pino';
import type { Couch } from './couch.js';
import { inStore } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, reconcileDoc, createOnce, type Reconciled, type StoredDoc, database, type Database } from './documents.js';
import { FollowedDocuments } from './followed-documents.js';
import {
  NODE_DESCRIPTION_ID, NODE_CONFIG_ID, COMMUNITY_DESCRIPTION_ID, NETWORK_DESCRIPTION_ID, NETWORK_POLICY_ID, FILTER_DESCRIPTION_ID,
} from '../domain/node-documents.js';

export const NODE_STATUS_ID = 'node_status';
/** The ids of key cache entries (one per key location fetched) begin with this. */
export const KEY_CACHE_ID_PREFIX = 'keycache:';
/**
 * The node's key pair and its shared secrets: ordinary documents of the node database, created
 * once (createOnce: settled on a cluster). Nodes before this version kept them in `_local/`
 * documents, which a CouchDB cluster does not keep consistent; their values are carried over
 * (LEGACY_IDS), so an upgraded node keeps its key and its tokens stay valid.
 */
export const NODE_KEYS_ID = 'node_keys';
export const NODE_SECRETS_ID = 'node_secrets';
const LEGACY_IDS: Record<string, string> = { [NODE_KEYS_ID]: '_local/node_keys', [NODE_SECRETS_ID]: '_local/node_secrets' };

/** The databases of the node's own documents. */
export type NodeDb = 'node' | 'community' | 'network';

/**
 * The node_config document: the CONFIG a start was given, as written, and `descriptions`, the
 * content digest of each node document the last start that applied it left (by id; absent in a
 * node_config an earlier version of this code wrote).
 */
export interface KeptConfig { config: Record<string, unknown>; descriptions?: Record<string, string> }

export interface NodeKeys { publicKey: string; privateKey: string; fingerprint: string }

/** A key location's keys as last fetched (services/intake/key-resolver.ts). */
export interface KeyCacheEntry { url: string; keys: string[]; fetched: string }
type KeyCacheDoc = KeyCacheEntry & StoredDoc;

/** The node, community and network databases' followed documents (one _changes feed each). */
export interface FollowedNodeDocuments { node: FollowedDocuments; community: FollowedDocuments; network: FollowedDocuments }

export function followNodeDocuments(couch: Couch, names: DatabaseNames, logger?: Logger): FollowedNodeDocuments {
  return { node: new FollowedDocuments(couch, names.node, logger), community: new FollowedDocuments(couch, names.community, logger), network: new FollowedDocuments(couch, names.network, logger) };
}

export class NodeRepository {
  private readonly node: Database;
  private readonly community: Database;
  private readonly network: Database;

  constructor(couch: Couch, names: DatabaseNames, private readonly followed?: FollowedNodeDocuments) {
    this.node = database(couch, names.node);
    this.community = database(couch, names.community);
    this.network = database(couch, names.network);
  }

  private read(db: NodeDb, id: string): Promise<StoredDoc | undefined> {
    return this.followed ? this.followed[db].get(id) : getOrUndefined(this[db], id);
  }

  private changed(db: NodeDb, id: string): void {
    this.followed?.[db].changed(id);
  }

  /** Resolves once the node database's feed follows, so that reads from then on are kept in memory (at once when not followed). */
  async nodeFeedFollowing(): Promise<void> {
    await this.followed?.node.startedFollowing;
  }

  nodeDescription(): Promise<StoredDoc | undefined> {
    return this.read('node', NODE_DESCRIPTION_ID);
  }

  communityDescription(): Promise<StoredDoc | undefined> {
    return this.read('community', COMMUNITY_DESCRIPTION_ID);
  }

  networkDescription(): Promise<StoredDoc | undefined> {
    return this.read('network', NETWORK_DESCRIPTION_ID);
  }

  networkPolicy(): Promise<StoredDoc | undefined> {
    return this.read('network', NETWORK_POLICY_ID);
  }

  filterDescription(): Promise<StoredDoc | undefined> {
    return this.read('node', FILTER_DESCRIPTION_ID);
  }

  /** The node description and the filter description (followed: from memory; else one _all_docs request). */
  async nodeAndFilterDescriptions(): Promise<[StoredDoc | undefined, StoredDoc | undefined]> {
    if (this.followed) return Promise.all([this.nodeDescription(), this.filterDescription()]);
    const result = await inStore('read node documents', () => this.node.fetch({ keys: [NODE_DESCRIPTION_ID, FILTER_DESCRIPTION_ID] }));
    const byId = new Map(result.rows.flatMap((row) => ('doc' in row && row.doc ? [[row.id, row.doc] as const] : [])));
    return [byId.get(NODE_DESCRIPTION_ID), byId.get(FILTER_DESCRIPTION_ID)];
  }

  /**
   * Followed like the descriptions: /status serves it from memory (issue 14, defect 8: a health
   * check does not wait on a busy store); writers go through reconcileNodeDoc, which drops the copy.
   */
  nodeStatus(): Promise<StoredDoc | undefined> {
    return this.read('node', NODE_STATUS_ID);
  }

  /**
   * All documents of one doc_type in the node database: a handful, read without a view, but for
   * the key cache, one document per key location ever fetched (services/intake/key-resolver.ts),
   * whose id range is skipped: every anonymous `GET /` and `/services` reads this list.
   */
  async nodeDocsOfType(docType: string): Promise<StoredDoc[]> {
    // `_all_docs` orders ids by code point (CouchDB "/{db}/_all_docs"): ";" follows ":".
    const [before, after] = await Promise.all([
      inStore('list node documents', () => this.node.list({ include_docs: true, endkey: KEY_CACHE_ID_PREFIX, inclusive_end: false })),
      inStore('list node documents', () => this.node.list({ include_docs: true, startkey: `${KEY_CACHE_ID_PREFIX.slice(0, -1)};` })),
    ]);
    return [...before.rows, ...after.rows].flatMap((row) => (row.doc?.doc_type === docType ? [row.doc] : []));
  }

  serviceDescriptions(): Promise<StoredDoc[]> {
    return this.nodeDocsOfType('service_description');
  }

  serviceDescription(id: string): Promise<StoredDoc | undefined> {
    return this.read('node', id);
  }

  connections(): Promise<StoredDoc[]> {
    return this.nodeDocsOfType('connection_description');
  }

  /** The CONFIG an earlier start was given, as written (kept by storage/bootstrap.ts), or undefined. */
  async keptConfig(): Promise<KeptConfig | undefined> {
    const doc = await getOrUndefined(this.node, NODE_CONFIG_ID);
    if (!doc || typeof doc.config !== 'object' || doc.config === null) return undefined;
    const descriptions = typeof doc.descriptions === 'object' && doc.descriptions !== null ? doc.descriptions as Record<string, string> : undefined;
    return { config: doc.config as Record<string, unknown>, ...(descriptions ? { descriptions } : {}) };
  }

  /**
   * Keeps the CONFIG this start was given (undefined: the one kept already, which a start without
   * CONFIG applied) for later starts without CONFIG (runtime.ts), with the node documents as this
   * start left them (storage/kept-config.ts).
   */
  async keepConfig(given: Record<string, unknown> | undefined, descriptions: Record<string, string>): Promise<void> {
    await this.reconcileNodeDoc(NODE_CONFIG_ID, (existing) => ({ _id: NODE_CONFIG_ID, doc_type: 'node_config', config: given ?? existing?.config, descriptions }));
  }

  /** Whether a node has started on this store: its node description exists (its databases may not). */
  async hasStarted(): Promise<boolean> {
    return (await getOrUndefined(this.node, NODE_DESCRIPTION_ID)) !== undefined;
  }

  reconcileNodeDoc(id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<Reconciled> {
    return this.reconcile('node', id, build);
  }

  /** Writes `build(existing)` unless the stored document has that content (documents.ts reconcileDoc). */
  async reconcile(db: NodeDb, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<Reconciled> {
    try {
      return await reconcileDoc(this[db], id, build);
    } finally {
      this.changed(db, id);
    }
  }

  /** Deletes a node document; whether there was one to delete. */
  async deleteNodeDoc(id: string): Promise<boolean> {
    const existing = await getOrUndefined(this.node, id);
    try {
      if (!existing?._rev) return false;
      await inStore(`delete ${id}`, () => this.node.destroy(id, existing._rev as string));
      return true;
    } finally {
      this.changed('node', id);
    }
  }

  /** A document as stored now, never from memory. */
  storedDoc(db: NodeDb, id: string): Promise<StoredDoc | undefined> {
    return getOrUndefined(this[db], id);
  }

  async cachedKey(id: string): Promise<KeyCacheEntry | undefined> {
    return getOrUndefined<KeyCacheDoc>(this.node, id);
  }

  /** Several key cache entries in one request (_all_docs with keys), by id; missing ones are absent. */
  async cachedKeys(ids: string[]): Promise<Map<string, KeyCacheEntry>> {
    if (ids.length === 0) return new Map();
    const result = await inStore('read key cache', () => this.node.fetch({ keys: ids }));
    return new Map(result.rows.flatMap((row) => ('doc' in row && row.doc ? [[row.id, row.doc as KeyCacheDoc] as const] : [])));
  }

  /** Key cache entries are plain documents (doc_type key_cache), refreshed in place. */
  async cacheKey(id: string, entry: KeyCacheEntry): Promise<void> {
    try {
      await reconcileDoc(this.node, id, () => ({ _id: id, doc_type: 'key_cache', ...entry }));
    } catch {
      // A cache write that loses a race or fails is harmless: the key is fetched again next time.
    }
  }

  async nodeKeys(): Promise<NodeKeys | undefined> {
    return getOrUndefined<NodeKeys & StoredDoc>(this.node, NODE_KEYS_ID);
  }

  async createNodeKeysOnce(create: () => Promise<NodeKeys>): Promise<NodeKeys> {
    return (await this.createOnceCarryingOver(NODE_KEYS_ID, async () => ({ ...(await create()) }))) as NodeKeys & StoredDoc;
  }

  /** Secrets shared by every node process (the resumption-token HMAC key): never served, never distributed. */
  async secretsOnce(create: () => Record<string, string>): Promise<Record<string, string>> {
    const doc = await this.createOnceCarryingOver(NODE_SECRETS_ID, create);
    const { _id, _rev, ...secrets } = doc;
    void _id; void _rev;
    return secrets as Record<string, string>;
  }

  /** createOnce, taking an earlier version's `_local/` copy (LEGACY_IDS) when there is one. */
  private createOnceCarryingOver(id: string, create: () => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<StoredDoc> {
    return createOnce(this.node, id, async () => {
      const legacy = await getOrUndefined(this.node, LEGACY_IDS[id] as string);
      if (!legacy) return create();
      const { _id, _rev, ...values } = legacy;
      void _id; void _rev;
      return values;
    });
  }
}
