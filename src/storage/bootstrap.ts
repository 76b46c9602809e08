/**
 * Start-up against CouchDB: create missing databases, push changed design docs, seed and
 * reconcile the node's own documents from configuration. Safe to run from several node
 * processes at once (every write tolerates a concurrent writer).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Couch } from './couch.js';
import { inStore, isConflict, isNotFound, listDatabases, mapCouchError, storeStatusOf } from './couch.js';
import { databaseByKey, type DatabaseNames } from './databases.js';
import { RETIRED_DESIGN_DOCS, type DesignDocFile } from './design-docs.js';
import { contentDigest, getOrUndefined, type StoredDoc, database } from './documents.js';
import { NodeRepository, NODE_STATUS_ID, type KeptConfig, type NodeDb, type NodeKeys } from './node-repository.js';
import { refuseStaleKeptConfig, type SeedTarget } from './kept-config.js';
import type { NodeConfig } from '../config/index.js';
import {
  buildNodeDescription, buildCommunityDescription, buildNetworkDescription, buildNetworkPolicy,
  buildFilterDescription, buildConnections, NODE_DESCRIPTION_ID, FILTER_DESCRIPTION_ID,
} from '../domain/node-documents.js';
import { SERVICE_CATALOGUE, buildServiceDescription, serviceDocId } from '../domain/service-descriptions.js';

export interface BootstrapInput {
  couch: Couch;
  names: DatabaseNames;
  designDocs: DesignDocFile[];
  config: NodeConfig;
  /** What CONFIG gave, as written: kept for later starts without CONFIG; undefined when CONFIG is unset. */
  given?: Record<string, unknown>;
  /** Without CONFIG, the kept CONFIG this start applies, as read when it was applied (runtime.ts); checked before any write. */
  kept?: KeptConfig;
  publicUrl: string;
  logger: Logger;
  generateKeys: (nodeName: string, nodeId: string) => Promise<NodeKeys>;
  /** RETIRE_DESIGN_DOCS: delete retired design docs (true), or leave them and say so (a rolling upgrade). */
  retireDesignDocs: boolean;
}

export interface BootstrapResult {
  nodeId: string;
  /** HMAC key of resumption tokens, shared by every node process (never logged). */
  tokenSecret: string;
  createdDatabases: string[];
  pushedDesignDocs: string[];
  /** Design docs an earlier version pushed and this one deleted (RETIRED_DESIGN_DOCS). */
  retiredDesignDocs: string[];
  /** Retired design docs left in place because RETIRE_DESIGN_DOCS is off. */
  keptRetiredDesignDocs: string[];
}

const newId = (): string => randomUUID().replace(/-/g, '');

export async function ensureDatabases(couch: Couch, names: DatabaseNames): Promise<string[]> {
  const existing = new Set(await listDatabases(couch));
  const created: string[] = [];
  for (const name of Object.values(names)) {
    if (existing.has(name)) continue;
    if (await createDatabase(couch, name)) created.push(name);
  }
  return created;
}

/**
 * Creates one database; false when another node process created it first. A single CouchDB
 * says so with 412; a cluster, where each member writes the shard map, can answer a creation
 * racing another one with 500 "conflict" (two processes started together through two members:
 * 1 start in 5 of a cluster test failed so). Then the database is looked for: there, it is
 * another's; not there yet, the creation is tried again.
 */
async function createDatabase(couch: Couch, name: string): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await couch.db.create(name);
      return true;
    } catch (error) {
      const status = storeStatusOf(error);
      if (status === 412) return false;
      // Anything but the cluster's answer to a race (credentials refused, no store) fails at once.
      if ((status !== 500 && status !== 409) || attempt >= 5) throw mapCouchError(error, `create database ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      if (await databaseExists(couch, name)) return false;
    }
  }
}

async function databaseExists(couch: Couch, name: string): Promise<boolean> {
  try {
    await couch.db.get(name);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw mapCouchError(error, `read database ${name}`);
  }
}

export async function pushDesignDocs(couch: Couch, names: DatabaseNames, files: DesignDocFile[]): Promise<string[]> {
  const pushed: string[] = [];
  for (const { db: key, doc } of files) {
    const db = database(couch, databaseByKey(names, key));
    const stored = await getOrUndefined(db, doc._id);
    if (stored && stored.content_hash === doc.content_hash) continue;
    try {
      await db.insert({ ...doc, ...(stored?._rev ? { _rev: stored._rev } : {}) } as never);
      pushed.push(`${key}/${doc._id}`);
    } catch (error) {
      if (!isConflict(error)) throw mapCouchError(error, `push ${key}/${doc._id}`);
    }
  }
  return pushed;
}

/**
 * Deletes the design docs the node no longer has (RETIRED_DESIGN_DOCS) where it pushed them
 * itself, then asks each database that lost one to drop index files no design doc uses (CouchDB
 * "POST /{db}/_view_cleanup"). A 404 or 409 means another node process got there first.
 */
export async function retireDesignDocs(couch: Couch, names: DatabaseNames, retired = RETIRED_DESIGN_DOCS): Promise<string[]> {
  const removed: string[] = [];
  const cleaned = new Set<string>();
  for (const { key, id, name, stored } of await retiredDesignDocsStored(couch, names, retired)) {
    const db = database(couch, name);
    try {
      await db.destroy(id, stored._rev);
      removed.push(`${key}/${id}`);
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw mapCouchError(error, `retire ${key}/${id}`);
    }
    cleaned.add(name);
  }
  for (const name of cleaned) {
    await inStore(`clean up the view indexes of ${name}`, () => couch.request({ db: name, method: 'POST', path: '_view_cleanup' }));
  }
  return removed;
}

/** The retired design docs the store holds with the node's mark (an operator's own of the same name is not listed). */
async function retiredDesignDocsStored(couch: Couch, names: DatabaseNames, retired: typeof RETIRED_DESIGN_DOCS): Promise<{ key: string; id: string; name: string; stored: StoredDoc & { _rev: string } }[]> {
  const found = [];
  for (const { db: key, id } of retired) {
    const name = databaseByKey(names, key);
    const stored = await getOrUndefined(database(couch, name), id);
    if (stored?._rev && typeof stored.content_hash === 'string') found.push({ key, id, name, stored: stored as StoredDoc & { _rev: string } });
  }
  return found;
}

/**
 * The node documents CONFIG and PUBLIC_URL describe, written when they differ from the stored
 * ones. Returns the ids of stored documents this start changed: several processes serving one
 * node share these documents, so a start with other settings changes them for every process;
 * and `left`, each document as this start left it (kept-config.ts). `repo` may be a dry run.
 */
async function seedNodeDocuments(input: BootstrapInput, repo: SeedTarget): Promise<{ nodeId: string; changed: string[]; left: Record<string, string> }> {
  const { config, publicUrl } = input;
  const changed: string[] = [];
  const left: Record<string, string> = {};
  const reconcile = async (db: NodeDb, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<StoredDoc> => {
    const { doc, replaced } = await repo.reconcile(db, id, build);
    if (replaced) changed.push(id);
    left[id] = contentDigest(doc);
    return doc;
  };
  const node = await reconcile('node', NODE_DESCRIPTION_ID, (existing) =>
    buildNodeDescription(config, typeof existing?.node_id === 'string' ? existing.node_id : newId()));
  const nodeId = String(node.node_id);
  await reconcile('community', 'community_description', () => buildCommunityDescription(config));
  await reconcile('network', 'network_description', () => buildNetworkDescription(config));
  await reconcile('network', 'network_policy_description', () => buildNetworkPolicy(config));
  const filter = buildFilterDescription(config);
  if (filter) await reconcile('node', FILTER_DESCRIPTION_ID, () => filter);
  else if (await repo.deleteNodeDoc(FILTER_DESCRIPTION_ID)) changed.push(FILTER_DESCRIPTION_ID);
  const connections = buildConnections(config, publicUrl);
  for (const connection of connections) {
    await reconcile('node', connection._id, () => connection);
  }
  // CONFIG lists every connection (spec "Distribution", source step 2 reads the connectivity
  // documents): one it no longer lists is deleted, or the node would go on sending to it, and a
  // removed gateway connection would still count against the one active gateway allowed (step 3).
  const configured = new Set(connections.map((connection) => connection._id));
  for (const stored of await repo.connections()) {
    if (!configured.has(stored._id)) {
      await repo.deleteNodeDoc(stored._id);
      changed.push(stored._id);
    }
  }
  for (const entry of SERVICE_CATALOGUE) {
    await reconcile('node', serviceDocId(entry), (existing) =>
      buildServiceDescription(entry, config, publicUrl, typeof existing?.service_id === 'string' ? existing.service_id : newId()));
  }
  return { nodeId, changed, left };
}

async function recordStart(repo: NodeRepository): Promise<void> {
  const now = new Date().toISOString();
  await repo.reconcileNodeDoc(NODE_STATUS_ID, (existing: StoredDoc | undefined) => ({
    ...(existing ?? {}),
    _id: NODE_STATUS_ID,
    doc_type: 'node_status',
    install_time: typeof existing?.install_time === 'string' ? existing.install_time : now,
    start_time: now,
  }));
}

export async function bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
  const repo = new NodeRepository(input.couch, input.names);
  // Before anything is written: a refused start leaves the store as it found it.
  const kept = input.given ? undefined : input.kept;
  if (kept?.descriptions) await refuseStaleKeptConfig(repo, kept.descriptions, (target) => seedNodeDocuments(input, target));
  const createdDatabases = await ensureDatabases(input.couch, input.names);
  const pushedDesignDocs = await pushDesignDocs(input.couch, input.names, input.designDocs);
  // During a rolling upgrade, processes of the earlier version still read the retired design
  // docs: RETIRE_DESIGN_DOCS=off leaves them until the last of those processes is gone.
  const retiredDesignDocs = input.retireDesignDocs ? await retireDesignDocs(input.couch, input.names) : [];
  const keptRetiredDesignDocs = input.retireDesignDocs ? [] : (await retiredDesignDocsStored(input.couch, input.names, RETIRED_DESIGN_DOCS)).map(({ key, id }) => `${key}/${id}`);
  if (keptRetiredDesignDocs.length > 0) {
    input.logger.warn({ keptRetiredDesignDocs }, 'retired design docs left in place (RETIRE_DESIGN_DOCS=off): CouchDB keeps indexing them after writes; start a process with RETIRE_DESIGN_DOCS=on once no earlier version serves this CouchDB');
  }
  const { nodeId, changed, left } = await seedNodeDocuments(input, repo);
  if (changed.length > 0) {
    // Expected after editing CONFIG; otherwise another process serving this node was started
    // with other settings, and the last one to start decides for all (docs/scaling.md).
    input.logger.warn({ changed }, 'this start changed node documents an earlier start wrote (CONFIG, PUBLIC_URL or the defaults of the version running differ from what it wrote): every process serving this node now uses the new ones; start them all with the same settings');
  }
  // Kept once the documents it describes are written: a CONFIG that fails before is not kept. A
  // start that applied the kept CONFIG records what it left too (its PUBLIC_URL, this version's
  // defaults), or the next start would take its own writes for another's (kept-config.ts).
  if (input.given || kept) await repo.keepConfig(input.given, left);
  await repo.createNodeKeysOnce(() => input.generateKeys(input.config.node.node_name, nodeId));
  const secrets = await repo.secretsOnce(() => ({ token_secret: randomBytes(32).toString('hex') }));
  await recordStart(repo);
  input.logger.info({ nodeId, createdDatabases, pushedDesignDocs, retiredDesignDocs }, 'bootstrap complete');
  return { nodeId, tokenSecret: String(secrets.token_secret), createdDatabases, pushedDesignDocs, retiredDesignDocs, keptRetiredDesignDocs };
}
