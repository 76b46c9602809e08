/**
 * `GET /{db}/_design/{ddoc}/_info` for the embedded store, whose express-pouchdb answers it with
 * a placeholder. CouchDB's answer ("/{db}/_design/{ddoc}/_info") carries view_index.update_seq,
 * the database sequence the design document's index has reached; monitoring compares it with
 * the database's update_seq (view build lag). PouchDB keeps each view's index in a dependent
 * database named `{db}-mrview-{md5(map + reduce + "undefined")}` (pouchdb-abstract-mapreduce,
 * createView), listed in the source database's `_local/mrviews`, with its position in
 * `_local/lastSeq`. A design document's position is its least advanced view's; a view never
 * queried is at 0. Nothing is built or created here: unknown databases are left to express-pouchdb.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface PouchHandle { get(id: string): Promise<Record<string, unknown>> }
export type OpenDb = (name: string) => PouchHandle;

const INFO_PATH = /^\/([^/?]+)\/_design\/([^/?]+)\/_info(?:\?.*)?$/;

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
/** pouchdb-abstract-mapreduce's stringify of a map or reduce function given as a string. */
const part = (fn: unknown): string => (typeof fn === 'string' ? fn : fn === undefined || fn === null ? 'undefined' : JSON.stringify(fn));

async function orUndefined(read: Promise<Record<string, unknown>>): Promise<Record<string, unknown> | undefined> {
  try {
    return await read;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

async function viewIndexSeq(open: OpenDb, dbName: string, ddocName: string, views: Record<string, { map?: unknown; reduce?: unknown }>): Promise<number> {
  const registered = ((await orUndefined(open(dbName).get('_local/mrviews')))?.views ?? {}) as Record<string, Record<string, boolean>>;
  let least = Number.POSITIVE_INFINITY;
  for (const [viewName, view] of Object.entries(views)) {
    const indexDb = `${dbName}-mrview-${md5(part(view.map) + part(view.reduce) + 'undefined')}`;
    const seq = registered[`${ddocName}/${viewName}`]?.[indexDb] ? Number((await orUndefined(open(indexDb).get('_local/lastSeq')))?.seq ?? 0) : 0;
    least = Math.min(least, seq);
  }
  return Number.isFinite(least) ? least : 0;
}

/** Answers the request and returns true when it is a design-document info request for an existing database. */
export function handleDdocInfo(req: IncomingMessage, res: ServerResponse, open: OpenDb, exists: (db: string) => boolean): boolean {
  const match = req.method === 'GET' ? INFO_PATH.exec(req.url ?? '') : null;
  if (!match?.[1] || !match[2]) return false;
  const dbName = decodeURIComponent(match[1]);
  const ddocName = decodeURIComponent(match[2]);
  if (!exists(dbName)) return false;
  const send = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  (async () => {
    const ddoc = await orUndefined(open(dbName).get(`_design/${ddocName}`));
    if (!ddoc) return send(404, { error: 'not_found', reason: 'missing' });
    const views = (ddoc.views ?? {}) as Record<string, { map?: unknown; reduce?: unknown }>;
    const updateSeq = await viewIndexSeq(open, dbName, ddocName, views);
    return send(200, { name: ddocName, view_index: { signature: md5(JSON.stringify(views)), language: 'javascript', update_seq: updateSeq, updater_running: false, compact_running: false, waiting_clients: 0 } });
  })().catch((error: unknown) => send(500, { error: 'internal_error', reason: (error as Error).message }));
  return true;
}
