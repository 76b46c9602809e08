/**
 * LevelDB under the embedded store, guarded: an IO error that a write or an open reports ends
 * the store process at once, before anything is answered, and the supervisor
 * starts it again (supervisor.ts, backing off while the restarts keep failing).
 *
 * Why (an audit that filled the disk under the store): a write that failed for want of space
 * left a torn record in LevelDB's write-ahead log, and the running store went on appending the
 * next batches after it once space was back, and acknowledged them. At the next crash LevelDB's
 * recovery dropped the log from the torn record on ("dropping … bytes; Corruption: checksum
 * mismatch"): 30 acknowledged documents were lost, and every view index, which had seen them,
 * stood ahead of the database and skipped the next 30 written. Meanwhile express-pouchdb had
 * answered the failed write 400 `bad_request`, and kept a database whose open failed in its
 * cache for good. Reopened, a database recovers its log into a table and starts a new one, so
 * nothing acknowledged after a fault is written behind it; and a crash is what the node already
 * handles: the requests in flight are answered 503 with Retry-After, none acknowledged that the
 * store did not keep. CouchDB refuses such a write and goes on (its append-only file is
 * truncated to its last valid header on open); stopping is this store's way to the same end.
 */
import leveldown from 'leveldown';

type Callback = (error?: Error | null, ...results: unknown[]) => void;
type Method = (...args: unknown[]) => void;

/**
 * What LevelDB says of a write or open the disk refused (leveldb/status.cc: "IO error: …"). Not
 * its "Corruption: …": a damaged file stays damaged through a restart, and stopping the store for
 * it would take every database down with the one that holds it (a damaged view index), where the
 * error leaves the others serving.
 */
export function isStorageFault(error: unknown): boolean {
  const message = error instanceof Error ? `${error.message} ${String((error as { cause?: Error }).cause?.message ?? '')}` : '';
  return /(?:^|\s)IO error:/.test(message);
}

/** The methods of a leveldown instance that write or open (abstract-leveldown's private API). */
const GUARDED = ['_open', '_put', '_del', '_batch'] as const;

/**
 * A leveldown factory for PouchDB's `db` option: each database it opens reports storage
 * faults to `onFault` instead of to its caller. PouchDB keys its open databases by the
 * factory's name, so the name stays one for the store's life.
 */
export function guardedLeveldown(onFault: (error: Error) => void): ((location: string) => unknown) & { destroy: unknown } {
  const guard = (callback: Callback): Callback => (error, ...results) => {
    if (error && isStorageFault(error)) { onFault(error); return; }
    callback(error, ...results);
  };
  const wrapLast = (original: Method): Method => (...args) => {
    const callback = args.pop() as Callback;
    original(...args, guard(callback));
  };
  function GuardedLevelDOWN(location: string): unknown {
    const db = leveldown(location) as unknown as Record<string, Method>;
    for (const name of GUARDED) db[name] = wrapLast((db[name] as Method).bind(db));
    const chained = (db._chainedBatch as Method).bind(db) as () => Record<string, Method>;
    db._chainedBatch = (() => {
      const batch = chained();
      batch._write = wrapLast((batch._write as Method).bind(batch));
      return batch;
    }) as Method;
    return db;
  }
  return Object.assign(GuardedLevelDOWN, { destroy: (leveldown as unknown as { destroy: unknown }).destroy });
}
