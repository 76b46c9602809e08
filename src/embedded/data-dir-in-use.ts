/**
 * One node per DATA_DIR: LevelDB lets one process open the store, and a second node on the same
 * directory would crash-loop its store child on the LOCK for 30 s, then overwrite
 * `embedded-store.json` (where tools find the running store) with its dead URL. So before its
 * store starts, a node asks the store that file names: if it answers as this directory's store
 * (the API's welcome, to this directory's admin credentials), the start stops with
 * one line. A stale file (the node stopped, or was killed) answers nothing and is ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/index.js';

const PROBE_MS = 1000;

export async function refuseDataDirInUse(dataDir: string, credentials: { user: string; password: string }): Promise<void> {
  let url: string;
  try {
    url = (JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-store.json'), 'utf8')) as { url: string }).url;
  } catch {
    return; // never started here, or an unreadable file: nothing is running on it that we could find
  }
  let welcome: unknown;
  try {
    const response = await fetch(`${url.replace(/\/+$/, '')}/`, {
      headers: { authorization: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}` },
      signal: AbortSignal.timeout(PROBE_MS),
    });
    welcome = response.ok ? await response.json() : undefined;
  } catch {
    return; // nothing answers there
  }
  // express-pouchdb welcomes with {"express-pouchdb": "Welcome!", …}; a CouchDB with {"couchdb": "Welcome", …}.
  const greeting = (welcome ?? {}) as Record<string, unknown>;
  if (greeting['express-pouchdb'] !== undefined || greeting.couchdb === 'Welcome') {
    throw new ConfigError('DATA_DIR', `${dataDir} is in use by a running node (its embedded store answers at ${url}); stop that node, or give this one a DATA_DIR of its own`);
  }
}
