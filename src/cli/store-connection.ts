/**
 * Store connection for command-line tools: the configured CouchDB, else the embedded store of a
 * running node on the same DATA_DIR, else an embedded store started just for the tool.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import type { Settings } from '../config/index.js';
import { connectCouch, type Couch } from '../storage/couch.js';
import { embeddedCredentials } from '../embedded/credentials.js';
import { EmbeddedCouch } from '../embedded/supervisor.js';

export interface ToolConnection { couch: Couch; close(): Promise<void> }

export async function connectForTool(settings: Settings): Promise<ToolConnection> {
  if (settings.couchdbUrl) {
    return { couch: connectCouch({ url: settings.couchdbUrl, user: settings.couchdbUser, password: settings.couchdbPassword }), close: async () => undefined };
  }
  const dataDir = path.resolve(settings.dataDir);
  const credentials = embeddedCredentials(dataDir);
  const runningFile = path.join(dataDir, 'embedded-store.json');
  if (fs.existsSync(runningFile)) {
    const { url } = JSON.parse(fs.readFileSync(runningFile, 'utf8')) as { url: string };
    const couch = connectCouch({ url, ...credentials });
    try {
      await couch.info();
      return { couch, close: async () => undefined };
    } catch {
      // a stale file: no node is running on this DATA_DIR
    }
  }
  const embedded = new EmbeddedCouch({ dataDir, ...credentials, logger: pino({ level: 'silent' }) });
  const url = await embedded.start();
  return { couch: connectCouch({ url, ...credentials }), close: () => embedded.stop() };
}
