/**
 * Every view read of the node goes through here, for three reasons:
 * - by POST with the query in the body (CouchDB "POST /{db}/_design/{ddoc}/_view/{view}", which
 *   express-pouchdb also takes): keys of any length never reach the store's URL, whose limit
 *   answers 431 (issue 14, defect 3);
 * - with a bounded wait: a view whose index is still being built would hold the request for as
 *   long as the build takes; past `waitMs` the store request is aborted and the client gets a 503
 *   with Retry-After (the store goes on building, so a retry finds the index ready);
 * - stale reads where the caller asks for one (`stale: "update_after"`, which CouchDB 3 and
 *   PouchDB both accept): the rows as last indexed, at once, and the build started behind.
 */
import type { DocumentScope, DocumentViewResponse } from 'nano';
import { storeUnavailable } from '../errors/app-error.js';
import { abortableRequest, mapCouchError } from './couch.js';

export interface ViewParams {
  startkey?: unknown;
  endkey?: unknown;
  keys?: unknown[];
  limit?: number;
  descending?: boolean;
  inclusive_end?: boolean;
  include_docs?: boolean;
  update_seq?: boolean;
  stale?: 'ok' | 'update_after';
}

/** What a view read answers; `update_seq` only when asked for (the sequence the index has reached). */
export type ViewResult<V> = DocumentViewResponse<V, unknown> & { update_seq?: string | number };

/**
 * Seconds a client is told to wait before retrying a read that found its index still building.
 * Short, because the retry itself waits up to `waitMs` for the index and is answered the moment
 * it is built: the pause only adds to the client's wait (with 10 s, the bench `fresh` first page
 * arrived up to 10 s after its index was built), and costs the store one held request per client.
 */
const RETRY_AFTER_SECONDS = 2;

export class ViewReader {
  constructor(private readonly waitMs: number) {}

  /** `waitMs` overrides the node's limit for one read (a health check waits far less). */
  async read<V>(db: DocumentScope<unknown>, what: string, ddoc: string, view: string, params: ViewParams, waitMs = this.waitMs): Promise<ViewResult<V>> {
    const signal = AbortSignal.timeout(waitMs);
    try {
      return await abortableRequest(db.server, { db: db.config.db, method: 'POST', path: `_design/${ddoc}/_view/${view}`, body: params }, signal) as ViewResult<V>;
    } catch (error) {
      if (signal.aborted) {
        throw storeUnavailable(`the store's index for this request is still being built (${what}); retry in ${RETRY_AFTER_SECONDS} s`, { cause: error, retryAfter: RETRY_AFTER_SECONDS });
      }
      throw mapCouchError(error, what);
    }
  }
}
