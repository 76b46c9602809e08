/**
 * One node per DATA_DIR: LevelDB lets one process open the store, and a second node on the same
 * directory would crash-loop its store child on the LOCK for 30 s, then overwrite
 * `embedded-store.json` (where tools find the running store) with its dead URL. So before its
 * store starts, a node asks the store that file names; the command-line tools ask the same to find
 * a running node's store (src/cli/store-connection.ts). A stale file (the node stopped, or was
 * killed) answers nothing and is ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/index.js';
import { askStore, connectCouch, whileNotAborted } from '../storage/couch.js';

const PROBE_MS = 1000;

/** The URL of the embedded store running on `dataDir`, when one answers to this directory's admin credentials. */
export async function runningStoreUrl(dataDir: string, credentials: { user: string; password: string }): Promise<string | undefined> {
  let url: string;
  try {
    url = (JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8')) as { url: string }).url;
  } catch {
    return undefined; // never started here, or an unreadable file
  }
  try {
    await whileNotAborted(askStore(connectCouch({ url, ...credentials })), AbortSignal.timeout(PROBE_MS));
    return url;
  } catch {
    return undefined; // nothing answers there, or not to this directory's credentials
  }
}

export async function refuseDataDirInUse(dataDir: string, credentials: { user: string; password: string }): Promise<void> {
  const url = await runningStoreUrl(dataDir, credentials);
  if (url) throw new ConfigError('DATA_DIR', `${dataDir} is in use by a running node (its embedded store answers at ${url}); stop that node, or give this one a DATA_DIR of its own`);
}
