/**
 * Child-process entry of the embedded CouchDB-compatible server (express-pouchdb over
 * PouchDB 9 + LevelDB). It runs in its own process because express-pouchdb kills its
 * process on several error paths; the supervisor restarts it (see supervisor.ts).
 *
 * Every request must carry the server admin's Basic credentials: express-pouchdb has no
 * `require_valid_user`, so the gate is here, in front of it, not in a patch.
 */
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import basicAuth from 'basic-auth';
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import httpAdapter from 'pouchdb-adapter-http';
import mapreduce from 'pouchdb-mapreduce';
import replication from 'pouchdb-replication';
import find from 'pouchdb-find';
import expressPouchDB from 'express-pouchdb';
import { handleDdocInfo, type PouchHandle } from './ddoc-info.js';
import { guardedLeveldown } from './storage-fault.js';
import { AUTO_COMPACTION, scheduleCatchUp, type Compactable } from './compaction.js';
import { exitCodeOf } from '../errors/exit-codes.js';

/** Longest a stopping store waits for responses in progress. */
const DRAIN_MS = 1000;

type StoreHandle = PouchHandle & Compactable;

interface ChildSettings { dataDir: string; port: number; user: string; password: string; compactionCatchUpDelayMs: number }

/** The settings arrive as the first IPC message from the supervisor (never in the environment). */
function readSettings(): Promise<ChildSettings> {
  return new Promise((resolve) => {
    process.once('message', (message: { type?: string; settings?: ChildSettings }) => {
      if (message.type !== 'settings' || !message.settings) throw new Error('the embedded store expects its settings as its first message');
      resolve(message.settings);
    });
  });
}

/**
 * Everything the store writes holds secrets or their hashes (the admin password hash in
 * express-pouchdb.json, the accounts and session secret in LevelDB): files 0600 and directories
 * 0700, including a DATA_DIR an operator created with wider modes.
 */
function restrictModes(dataDir: string, storeDir: string, files: string[]): void {
  process.umask(0o077);
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  for (const dir of [dataDir, storeDir]) fs.chmodSync(dir, 0o700);
  for (const file of files) if (fs.existsSync(file)) fs.chmodSync(file, 0o600);
  for (const entry of fs.readdirSync(storeDir, { withFileTypes: true })) {
    const full = path.join(storeDir, entry.name);
    fs.chmodSync(full, entry.isDirectory() ? 0o700 : 0o600);
  }
}

/**
 * Ends the store at once, saying why in one line (the supervisor logs the child's last words and
 * starts it again): a storage fault (storage-fault.ts), or an error nothing handled, such as a
 * view index write that failed in the background (pouchdb-abstract-mapreduce), which Node would
 * otherwise report with its whole stack at each of the restarts.
 */
function stopOnFault(kind: string, error: unknown): never {
  process.stderr.write(`embedded store stopped (${kind}): ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function isAdmin(header: string | undefined, settings: ChildSettings): boolean {
  const credentials = header === undefined ? undefined : basicAuth.parse(header);
  return credentials !== undefined && sameSecret(credentials.name, settings.user) && sameSecret(credentials.pass, settings.password);
}

async function main(): Promise<void> {
  process.on('uncaughtException', (error) => stopOnFault('uncaught error', error));
  process.on('unhandledRejection', (reason) => stopOnFault('uncaught error', reason));
  const settings = await readSettings();
  const storeDir = path.join(settings.dataDir, 'store');
  const configPath = path.join(settings.dataDir, 'express-pouchdb.json');
  const logPath = path.join(settings.dataDir, 'express-pouchdb.log');
  restrictModes(settings.dataDir, storeDir, [configPath, logPath]);
  // express-pouchdb hashes the admin password in this file on load (config-infrastructure.js).
  fs.writeFileSync(configPath, JSON.stringify({
    admins: { [settings.user]: settings.password },
    log: { file: path.join(settings.dataDir, 'express-pouchdb.log'), level: 'error' },
  }), { mode: 0o600 });

  const Pouch = PouchDB.plugin(leveldbAdapter).plugin(httpAdapter).plugin(mapreduce)
    .plugin(replication).plugin(find)
    .defaults({ prefix: storeDir + path.sep, db: guardedLeveldown((error) => stopOnFault('storage fault', error)), ...AUTO_COMPACTION });
  // Without `compression`: CouchDB 3.x answers JSON uncompressed whatever Accept-Encoding says, and
  // on loopback gzip is CPU spent twice (the store compresses, the node's HTTP client inflates).
  // Without `disk-size`: it added `disk_size` to every database info by walking the database's
  // folder (an lstat per LevelDB file, 3.5 ms a request at 2,000 documents, growing with the
  // store), and the index warmer reads the info four times a second; CouchDB 3.x has no
  // `disk_size` (its `sizes` are kept, not computed), and the node reads neither.
  const couch = expressPouchDB(Pouch, { configPath, logPath: path.join(settings.dataDir, 'express-pouchdb.log'), mode: 'fullCouchDB', overrideMode: { exclude: ['routes/fauxton', 'compression', 'disk-size'] } });

  // Handles opened for design-document info and compaction are kept (closing one would close the store's own).
  const handles = new Map<string, StoreHandle>();
  const open = (name: string): StoreHandle => {
    let handle = handles.get(name);
    if (!handle) { handle = new Pouch(name); handles.set(name, handle); }
    return handle;
  };
  const exists = (name: string): boolean => fs.existsSync(path.join(storeDir, name));
  // A catch-up that fails is tried again at the next start (no marker written): the store serves on.
  scheduleCatchUp({ storeDir, dataDir: settings.dataDir, open, exists, delayMs: settings.compactionCatchUpDelayMs, onError: (error) => process.stderr.write(`embedded store: compaction of earlier revisions failed (${error instanceof Error ? error.message : String(error)}); tried again at the next start\n`) });

  // Responses not yet finished: a stop lets them end (for up to DRAIN_MS: a longpoll the node
  // gave up on would hold it for its whole timeout), then drops the connections left, idle
  // keep-alive ones (server.close() alone held them for about 3 s, the clients' idle timeout).
  const inFlight = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
    if (!isAdmin(req.headers.authorization, settings)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="embedded"' });
      res.end(JSON.stringify({ error: 'unauthorized', reason: 'Authentication required.' }));
      return;
    }
    if (handleDdocInfo(req, res, open, exists)) return;
    couch(req, res);
  });
  server.listen(settings.port, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : settings.port;
    process.send?.({ type: 'listening', port });
  });
  server.on('error', (error) => {
    process.send?.({ type: 'error', message: error.message });
    process.exit(exitCodeOf(error));
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    const deadline = Date.now() + DRAIN_MS;
    const drain = setInterval(() => {
      if (inFlight.size > 0 && Date.now() < deadline) return;
      clearInterval(drain);
      server.closeAllConnections();
    }, 20);
  });
}

void main();
