/**
 * The suite's store opened straight, without a node: a tool-level connection for tests of the
 * storage layer. With TEST_COUCHDB_URL, that CouchDB with a database prefix of this run (deleted
 * by the root hook); otherwise an embedded store of its own in `dataDir`, stopped by close().
 */
import pino from 'pino';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';
import { connectCouch, type Couch } from '../../src/storage/couch.js';
import { databaseNames, type DatabaseNames } from '../../src/storage/databases.js';
import { TEST_COUCHDB_URL, prefixFor } from './store.js';

export interface SuiteStore { couch: Couch; names: DatabaseNames; embedded: boolean; close(): Promise<void> }

export async function openSuiteStore(dataDir: string): Promise<SuiteStore> {
  if (TEST_COUCHDB_URL) {
    return { couch: connectCouch({ url: TEST_COUCHDB_URL }), names: databaseNames(prefixFor(dataDir)), embedded: false, close: async () => undefined };
  }
  const credentials = { user: 'suite-admin', password: 'suite-admin-password' };
  const store = new EmbeddedCouch({ dataDir, ...credentials, logger: pino({ level: 'silent' }) });
  const couch = connectCouch({ url: await store.start(), ...credentials });
  return { couch, names: databaseNames('suite_'), embedded: true, close: () => store.stop() };
}
