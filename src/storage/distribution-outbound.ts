/**
 * What the source side of distribution needs from CouchDB: the check that resource_data documents
 * exist, one-shot filtered replication, destination credentials and the outbound status.
 */
import { redactedUrl, type Couch } from './couch.js';
import { scrubCredentials } from '../net/url-credentials.js';
import { urlAuthorization } from '../net/basic-authorization.js';
import type { DatabaseNames } from './databases.js';
import { type StoredDoc, database, type Database } from './documents.js';
import { DestinationCredentialsRepository, type DestinationCredentials } from './destination-credentials.js';
import { NODE_STATUS_ID, type NodeRepository } from './node-repository.js';
import { isLiveRow, type HarvestValue, type TimeKey } from './harvest-repository.js';
import type { ViewReader } from './view-reader.js';

export { DESTINATION_CREDENTIALS_ID, type DestinationCredentials } from './destination-credentials.js';

/**
 * Which documents a replication sends: a design-doc filter function with its query_params, and,
 * when the same selection can be written as one, the equivalent Mango selector.
 */
export interface ReplicationSelection { filter: string; queryParams: Record<string, string>; selector?: Record<string, unknown> }

/**
 * `error` is fit for /status (public); `detail`, the store's own words, is for the log only.
 * `writeFailures`: documents the destination refused (its answer to `_bulk_docs` named them), the
 * replication going on without them. `counts` is missing when the replication failed: neither
 * store says what it did before it failed.
 */
export interface ReplicationResult { ok: boolean; counts?: Counts; error?: string; detail?: string }

/**
 * A replication endpoint (CouchDB "Replication", `source` and `target` objects): the URL without
 * credentials and, when there are some, an Authorization header sent with every request to it.
 * Not credentials in the URL's userinfo: CouchDB 3's replicator does not percent-decode them, so
 * a password holding `$ @ : # % +` or a space was refused (401) by the destination, or by this
 * node's own CouchDB for the source, while it worked on the embedded store (an audit). The
 * embedded store honours the object through patches/express-pouchdb+5.0.1-rc1.0.patch.
 */
export type ReplicationEndpoint = string | { url: string; headers: { Authorization: string } };

/** `authorization`: the Authorization header value for the endpoint (net/basic-authorization.ts), if any. */
export function replicationEndpoint(url: string, authorization: string | undefined): ReplicationEndpoint {
  const plain = redactedUrl(url);
  return authorization ? { url: plain, headers: { Authorization: authorization } } : plain;
}

/**
 * Documents per replication batch (one `_revs_diff` and one `_bulk_docs` to the destination,
 * plus checkpoints, per batch): `worker_batch_size` is CouchDB 3's name (default 500),
 * `batch_size`/`batches_limit` PouchDB's (default 100/10; honoured by the embedded store's
 * `_replicate` through patches/express-pouchdb+5.0.1-rc1.0.patch). Every request to a
 * destination crosses its inbound proxy, so fewer, larger batches cost less per document.
 */
const BATCH_SIZE = 1000;
/**
 * CouchDB's replicator records its progress every `checkpoint_interval` ms (default 30 s), so a
 * replication interrupted by a destination going away resumes from at most this far back
 * (CouchDB "Replication Settings"). PouchDB checkpoints after every batch and ignores it.
 */
const CHECKPOINT_MS = 5000;
export const REPLICATION_OPTIONS = { worker_batch_size: BATCH_SIZE, batch_size: BATCH_SIZE, batches_limit: 4, checkpoint_interval: CHECKPOINT_MS } as const;

interface ReplicateResponse {
  ok?: boolean; no_changes?: boolean; docs_written?: number; docs_read?: number; doc_write_failures?: number;
  history?: { docs_written?: number; docs_read?: number; doc_write_failures?: number }[];
}

export type Counts = { docsWritten: number; docsRead: number; writeFailures: number };

/**
 * A failed `_replicate` in the user's terms. It is this node's store that answers: 404
 * `db_not_found` is its replicator failing to open the target (the destination went away or
 * stopped answering), 401/403 the destination refusing the credentials; anything else says the
 * status only (the store's own words go to the log).
 */
function replicationFailure(status: number | undefined, error: string | undefined): string {
  if (status === 404 && error === 'db_not_found') return 'the replication could not reach the destination\'s inbound endpoint (it went away or stopped answering); the next run resumes it';
  if (status === 401 || status === 403) return `the destination refused this node's credentials during the replication (HTTP ${status})`;
  return `the replication to the destination failed (${status ? `this node's store answered HTTP ${status}` : 'this node\'s store did not answer'})`;
}

/**
 * What this replication did. PouchDB answers with this session's counts at the top level.
 * CouchDB 3 answers with the replication's history, whose counts are cumulative over every
 * session of the same replication id (so this session's are the newest entry minus the one
 * before), and with `no_changes: true` and the previous session's history when there was
 * nothing to replicate (CouchDB "Replication", POST /_replicate).
 */
function sessionCounts(body: ReplicateResponse): Counts {
  if (body.docs_written !== undefined) {
    return { docsWritten: body.docs_written, docsRead: body.docs_read ?? 0, writeFailures: body.doc_write_failures ?? 0 };
  }
  if (body.no_changes) return { docsWritten: 0, docsRead: 0, writeFailures: 0 };
  const [latest = {}, previous = {}] = body.history ?? [];
  const since = (key: 'docs_written' | 'docs_read' | 'doc_write_failures'): number => Math.max(0, (latest[key] ?? 0) - (previous[key] ?? 0));
  return { docsWritten: since('docs_written'), docsRead: since('docs_read'), writeFailures: since('doc_write_failures') };
}

export class DistributionRepository {
  private readonly resources: Database;
  private readonly credentials: DestinationCredentialsRepository;

  /**
   * `source` is how the replicator names our resource data database: its name on the embedded
   * store (PouchDB replicates a local database and passes query_params straight to the filter),
   * its full URL on CouchDB 3 (local endpoints were removed in 3.0). `selectors`: replicate with
   * a Mango selector where the selection has one (Apache CouchDB 3).
   */
  constructor(private readonly couch: Couch, names: DatabaseNames, private readonly source: ReplicationEndpoint, private readonly nodes: NodeRepository, private readonly views: ViewReader, private readonly selectors = false) {
    this.credentials = new DestinationCredentialsRepository(couch, names);
    this.resources = database(couch, names.resourceData);
  }

  /**
   * Spec "Distribution", source step 1: whether any live document is stored. Basic Harvest's
   * by_node_timestamp has a row per harvestable document, value 0 for the live ones (the view
   * Basic Obtain reads, and the index that keeps up best during a bulk publish); pages are read
   * until a live row or the end, so tombstones and deleted documents never count.
   */
  async holdsResourceData(): Promise<boolean> {
    const page = 100;
    let after: unknown;
    for (;;) {
      const range = after === undefined ? {} : { startkey: after, skip: 1 };
      // A bounded wait (ViewReader): an index still being built answers 503, recorded as the run's outcome.
      const result = await this.views.read<TimeKey, HarvestValue>(this.resources, 'read resource data', 'harvest', 'by_node_timestamp', { ...range, limit: page });
      if (result.rows.some(isLiveRow)) return true;
      if (result.rows.length < page) return false;
      after = result.rows[result.rows.length - 1]?.key;
    }
  }

  /**
   * One-shot `POST /_replicate` (CouchDB "Replication", /_replicate): answers when the
   * replication has finished. Failures are returned, never thrown, with credentials scrubbed.
   */
  async replicate(target: ReplicationEndpoint, selection: ReplicationSelection): Promise<ReplicationResult> {
    // CouchDB 3 runs a selector in Erlang, a filter function in its JavaScript query server, one
    // document at a time; the embedded store runs either in-process, and takes the filter (the
    // path it has always been tested on).
    const choice = selection.selector && this.selectors ? { selector: selection.selector } : { filter: selection.filter, query_params: selection.queryParams };
    try {
      const body = await this.couch.request({ method: 'POST', path: '_replicate', body: { source: this.source, target, ...choice, ...REPLICATION_OPTIONS } }) as ReplicateResponse;
      // A destination refusing documents is its decision (its log says why), not a failed replication.
      return { ok: body.ok === true, counts: sessionCounts(body) };
    } catch (error) {
      const e = error as { statusCode?: number; reason?: string; error?: string; message?: string };
      const reason = e.reason ?? e.message ?? String(error);
      // The store's reason may quote resolver or socket errors (issue 14, defect 7): the public
      // error gives the status only, the log gets the rest. No counts: the replication may have
      // written documents before it failed, and neither store's answer says how many (CouchDB 3
      // answers {error, reason} and drops the transient job, whose _active_tasks entry had them;
      // the embedded store's express-pouchdb answers the same way, leaving out what PouchDB
      // knew). 0 would say nothing arrived.
      return {
        ok: false,
        error: replicationFailure(e.statusCode, e.error),
        detail: scrubCredentials(`${e.statusCode ?? 'no answer'} ${e.error ?? ''} ${reason}`.replace(/\s+/g, ' ').trim()),
      };
    }
  }

  credentialsFor(destinationUrl: string): Promise<DestinationCredentials | undefined> {
    return this.credentials.credentialsFor(destinationUrl);
  }

  setCredentials(destinationUrl: string, credentials: DestinationCredentials | undefined): Promise<void> {
    return this.credentials.setCredentials(destinationUrl, credentials);
  }

  /**
   * node_status is written through the node repository, so that the copy /status serves from
   * memory (src/storage/followed-documents.ts) is dropped at once, not when the feed reports it.
   */
  private async writeStatus(build: (existing: StoredDoc | undefined) => StoredDoc): Promise<void> {
    await this.nodes.reconcileNodeDoc(NODE_STATUS_ID, build);
  }

  /** Sets node_status.outbound (each destination of this run) and last_out_sync, the run's start (read by /status). */
  async recordOutbound(at: string, outbound: Record<string, Record<string, unknown>>): Promise<void> {
    // This run's destinations only: a connection removed or made inactive since is no longer listed.
    await this.writeStatus((existing: StoredDoc | undefined) => ({ ...(existing ?? {}), _id: NODE_STATUS_ID, last_out_sync: at, outbound }));
  }

  /**
   * Sets node_status.last_out_run: when the latest run started and finished, and whether it ran
   * (its error if not); `finished` null for a run whose process stopped before it ended.
   */
  async recordRun(run: { started: string; finished: string | null; OK: boolean; error?: string }): Promise<void> {
    await this.writeStatus((existing: StoredDoc | undefined) => ({ ...(existing ?? {}), _id: NODE_STATUS_ID, last_out_run: run }));
  }

  /**
   * Records as aborted the run that started at `run.started`, unless that run recorded its own
   * end: a process stopped between recording its run and releasing its lease left the lease
   * behind too, and the run's own record must stand.
   */
  async recordAbandonedRun(run: { started: string; finished: null; OK: false; error: string }): Promise<void> {
    await this.writeStatus((existing: StoredDoc | undefined) => {
      const recorded = (existing?.last_out_run as { started?: unknown } | undefined)?.started;
      return recorded === run.started && existing ? existing : { ...(existing ?? {}), _id: NODE_STATUS_ID, last_out_run: run };
    });
  }

  /** Sets node_status.last_in_sync: the last time inbound distribution stored documents. */
  async recordInbound(at: string): Promise<void> {
    await this.writeStatus((existing: StoredDoc | undefined) => ({ ...(existing ?? {}), _id: NODE_STATUS_ID, last_in_sync: at }));
  }
}

/** The replication source for `DistributionRepository`: see its constructor. */
export function replicationSource(couch: Couch, names: DatabaseNames, embedded: boolean): ReplicationEndpoint {
  if (embedded) return names.resourceData;
  // The node's own credentials are in its store URL, percent-encoded (couch.ts, credentialedUrl).
  return replicationEndpoint(`${redactedUrl(couch.config.url)}/${encodeURIComponent(names.resourceData)}`, urlAuthorization(couch.config.url));
}
