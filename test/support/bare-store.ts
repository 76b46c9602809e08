/**
 * The embedded store on its own, with no node in front (for the tests of its patches): started on
 * a fresh data directory, called with JSON over HTTP as its admin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';

export interface BareStore {
  /** The store's root URL, and the admin's Basic credential for requests made another way. */
  url: string;
  authorization: string;
  /** The admin's name and password, for a client of the node's own (connectCouch). */
  user: string;
  password: string;
  dataDir: string;
  call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Stops the store and deletes its data directory, unless `keepData` (to start it again on it). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface BareStoreOptions {
  /** An existing data directory (a store started before on it); a fresh one by default. */
  dataDir?: string;
  compactionCatchUpDelayMs?: number;
}

export async function startBareStore(name: string, options: BareStoreOptions = {}): Promise<BareStore> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `lr-${name}-`));
  const user = `${name}-admin`;
  const password = `${name}-secret-password`;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const couch = new EmbeddedCouch({ dataDir, user, password, logger: pino({ level: 'silent' }), ...(options.compactionCatchUpDelayMs === undefined ? {} : { compactionCatchUpDelayMs: options.compactionCatchUpDelayMs }) });
  await couch.start();
  return {
    url: couch.url,
    authorization,
    user,
    password,
    dataDir,
    async call(method, urlPath, body) {
      const response = await fetch(`${couch.url}${urlPath}`, { method, headers: { authorization, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: response.status, body: await response.json() as Record<string, unknown> };
    },
    async stop(stopOptions) {
      await couch.stop();
      if (!stopOptions?.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
