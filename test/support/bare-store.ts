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
  call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export async function startBareStore(name: string): Promise<BareStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lr-${name}-`));
  const user = `${name}-admin`;
  const password = `${name}-secret-password`;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const couch = new EmbeddedCouch({ dataDir, user, password, logger: pino({ level: 'silent' }) });
  await couch.start();
  return {
    url: couch.url,
    authorization,
    async call(method, urlPath, body) {
      const response = await fetch(`${couch.url}${urlPath}`, { method, headers: { authorization, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: response.status, body: await response.json() as Record<string, unknown> };
    },
    async stop() {
      await couch.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
