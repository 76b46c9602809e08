/**
 * Which store the suite runs against. Unset TEST_COUCHDB_URL: every node starts its own embedded
 * store (the default). Set to an admin URL of an Apache CouchDB 3.x: every node the tests start
 * uses that server, with a database prefix of its own derived from its data directory (so a node
 * restarted on the same DATA_DIR finds its databases again) and from this run (so runs and tests
 * never collide). The root hook below deletes this run's databases when the run ends.
 */
import { createHash, randomBytes } from 'node:crypto';

const couchUrl = process.env.TEST_COUCHDB_URL?.trim() || undefined;

/** The CouchDB 3.x admin URL the suite runs against, or undefined on the embedded store. */
export const TEST_COUCHDB_URL: string | undefined = couchUrl;
export const onCouchDB = couchUrl !== undefined;
export const storeName = onCouchDB ? 'CouchDB' : 'embedded store';

/** Names this run's databases: CouchDB names start with a lower-case letter. */
const RUN_PREFIX = `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

/** The database prefix of a node whose data directory is `dataDir`. */
export function prefixFor(dataDir: string): string {
  return `${RUN_PREFIX}_${createHash('sha256').update(dataDir).digest('hex').slice(0, 10)}_`;
}

/** What a node started for a test needs in its environment to use the suite's store. */
export function storeEnv(dataDir: string): Record<string, string> {
  return couchUrl ? { COUCHDB_URL: couchUrl, DB_PREFIX: prefixFor(dataDir) } : {};
}

/** The same for a process environment: follows its DATA_DIR, unless it names a CouchDB (or none: '') itself. */
export function storeEnvOf(env: Record<string, string>): Record<string, string> {
  return env.DATA_DIR && !('COUCHDB_URL' in env) ? storeEnv(env.DATA_DIR) : {};
}

/** The suite's CouchDB without credentials in its URL, and the admin's credentials as request headers. */
export function testCouchAdmin(): { root: string; headers: Record<string, string> } | undefined {
  if (!couchUrl) return undefined;
  const base = new URL(couchUrl);
  const auth = base.username ? `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}` : undefined;
  base.username = '';
  base.password = '';
  return { root: base.href.replace(/\/$/, ''), headers: auth ? { authorization: auth } : {} };
}

/** Deletes every database this run created on the CouchDB (nothing on the embedded store). */
export async function deleteRunDatabases(): Promise<number> {
  const admin = testCouchAdmin();
  if (!admin) return 0;
  const { root, headers } = admin;
  const all = await (await fetch(`${root}/_all_dbs?start_key=${encodeURIComponent(JSON.stringify(RUN_PREFIX))}&end_key=${encodeURIComponent(JSON.stringify(`${RUN_PREFIX}\ufff0`))}`, { headers })).json() as string[];
  for (const name of all) await fetch(`${root}/${encodeURIComponent(name)}`, { method: 'DELETE', headers });
  return all.length;
}
