/**
 * Real Apache CouchDB processes a test starts and stops itself (a destination's CouchDB stopped
 * mid-replication, a cluster member stopped mid-harvest), with the scripts of the CouchDB 3.5
 * test fixture (`../shared/couchdb` beside the project, or COUCHDB_FIXTURE_DIR). The fixture is
 * never part of the project: operators bring their own CouchDB.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './process.js';
import { tempDir } from './node.js';

const run = promisify(execFile);

export const FIXTURE_DIR = path.resolve(process.env.COUCHDB_FIXTURE_DIR ?? path.join(ROOT, '../shared/couchdb'));
export const fixtureAvailable = fs.existsSync(path.join(FIXTURE_DIR, 'start-couchdb.sh'));
const ADMIN = { user: 'admin', password: 'couchdb-local-test' };

/** A reason to give when the fixture is missing; under CI it is a failure, never a skip. */
export function requireFixture(): void {
  if (!fixtureAvailable) throw new Error(`the CouchDB test fixture is missing at ${FIXTURE_DIR} (set COUCHDB_FIXTURE_DIR)`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A base port with `count` free HTTP ports and their epmd port (+10000) free as well. */
export async function freePortRange(count: number): Promise<number> {
  for (;;) {
    const base = 20000 + Math.floor(Math.random() * 9000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if ((await Promise.all([...ports, base + 10000].map(portFree))).every(Boolean)) return base;
  }
}

export const adminUrl = (port: number): string => `http://${ADMIN.user}:${ADMIN.password}@127.0.0.1:${port}`;

export interface CouchInstance { port: number; url: string; start(): Promise<void>; stop(): Promise<void> }

/**
 * One single-node CouchDB with its own data directory, started now. `settings`: more of
 * start-couchdb.sh's variables (e.g. COUCHDB_SINGLE_NODE: 'false' for a server never set up).
 */
export async function startCouchInstance(settings: Record<string, string> = {}): Promise<CouchInstance> {
  requireFixture();
  const port = await freePortRange(1);
  const data = tempDir('lr-couchdb-');
  const env = { ...process.env, ...settings, COUCHDB_PORT: String(port), COUCHDB_DATA: data, COUCHDB_USER: ADMIN.user, COUCHDB_PASSWORD: ADMIN.password };
  const instance: CouchInstance = {
    port,
    url: adminUrl(port),
    start: async () => { await run('bash', [path.join(FIXTURE_DIR, 'start-couchdb.sh')], { env, timeout: 120000 }); },
    stop: async () => { await run('bash', [path.join(FIXTURE_DIR, 'stop-couchdb.sh')], { env, timeout: 60000 }); },
  };
  await instance.start();
  return instance;
}

export interface CouchCluster {
  basePort: number;
  memberUrl(index: number): string;
  stopMember(index: number): Promise<void>;
  /** SIGKILL of member `index`'s VM (beam.smp: start-couchdb.sh records its pid), no shutdown at all. */
  killMember(index: number): void;
  startMember(index: number): Promise<void>;
  stop(): Promise<void>;
}

/** A cluster of `size` members on loopback (cluster.sh: n = min(size, 3), q = 2). */
export async function startCouchCluster(size: number): Promise<CouchCluster> {
  requireFixture();
  const basePort = await freePortRange(size);
  const env = {
    ...process.env, COUCHDB_CLUSTER_DIR: tempDir('lr-couch-cluster-'), COUCHDB_USER: ADMIN.user, COUCHDB_PASSWORD: ADMIN.password,
    COUCHDB_DIST_BASE_PORT: String(basePort + 100), COUCHDB_CLUSTER_Q: '2',
  };
  const script = path.join(FIXTURE_DIR, 'cluster.sh');
  const cluster = (...args: string[]): Promise<unknown> => run('bash', [script, ...args], { env, timeout: 180000 });
  await cluster('start', String(size), String(basePort));
  return {
    basePort,
    memberUrl: (index) => adminUrl(basePort + index - 1),
    stopMember: async (index) => { await cluster('stop-member', String(index)); },
    killMember: (index) => {
      const pid = Number(fs.readFileSync(path.join(env.COUCHDB_CLUSTER_DIR, `node${index}`, 'run', 'couchdb.pid'), 'utf8').trim());
      process.kill(pid, 'SIGKILL');
    },
    startMember: async (index) => { await cluster('start-member', String(index)); },
    stop: async () => { await cluster('stop'); },
  };
}
