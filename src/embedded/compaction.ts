/**
 * Old revisions on the embedded store. CouchDB keeps a document's earlier revision bodies only
 * until its database is compacted, and CouchDB 3.x compacts by itself (the compaction daemon,
 * smoosh: docs.couchdb.org "Compaction", "Automatic Compaction"), so a document updated again and
 * again costs its current size. PouchDB's LevelDB adapter keeps every revision body until
 * `compact()` is called, which nothing here did: a document rewritten again and again (the OAuth
 * nonce record on each signed request, the incoming follower's lease every 10 s) grew the store by
 * its whole size each time, for good (a soak audit: the accounts database at 9.7 MB for 13 KB of
 * live data after 28 minutes). So the store's databases auto-compact (PouchDB `auto_compaction`:
 * each write drops the bodies of the revisions it made non-leaf; leaves, conflicts included, stay,
 * as after CouchDB's compaction), and a store an earlier version wrote is compacted once, in the
 * background, to drop what it kept.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The PouchDB options that make every database of the store auto-compact. */
export const AUTO_COMPACTION = { auto_compaction: true } as const;

/** Written once every database of the store has been compacted (or when it started empty). */
export const CAUGHT_UP_FILE = 'auto-compaction.json';

export interface Compactable { compact(): Promise<unknown> }

export interface CatchUpOptions {
  storeDir: string;
  /** Where CAUGHT_UP_FILE goes (outside storeDir, whose entries are the databases). */
  dataDir: string;
  open: (name: string) => Compactable;
  /** Whether the database is still there: opening one deleted meanwhile would create it again. */
  exists: (name: string) => boolean;
  /** How long after the start the catch-up begins: the first requests after a restart go first. */
  delayMs: number;
  onError: (error: unknown) => void;
}

/** The databases in the store's folder; view indexes (`-mrview-`) always auto-compacted (pouchdb-abstract-mapreduce). */
function databaseNames(storeDir: string): string[] {
  return fs.readdirSync(storeDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.includes('-mrview-'))
    .map((entry) => entry.name);
}

/**
 * Drops the old revision bodies an earlier version left, once per store. A store that starts
 * empty has none. PouchDB's compact() walks the changes after its own checkpoint
 * (`_local/compaction`), so an interrupted catch-up resumes where it was at the next start; about
 * 1.4 s for 20,000 documents on this project's machine, in the store's process, database by
 * database.
 */
export function scheduleCatchUp(options: CatchUpOptions): NodeJS.Timeout | undefined {
  const marker = path.join(options.dataDir, CAUGHT_UP_FILE);
  if (fs.existsSync(marker)) return undefined;
  const writeMarker = (): void => fs.writeFileSync(marker, `${JSON.stringify({ caught_up: new Date().toISOString() })}\n`, { mode: 0o600 });
  const names = databaseNames(options.storeDir);
  if (names.length === 0) {
    writeMarker();
    return undefined;
  }
  const timer = setTimeout(() => {
    void (async () => {
      for (const name of names) if (options.exists(name)) await options.open(name).compact();
      writeMarker();
    })().catch(options.onError);
  }, options.delayMs);
  timer.unref();
  return timer;
}
