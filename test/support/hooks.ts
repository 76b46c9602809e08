/** Root hooks (loaded by .mocharc.cjs): name the store this run uses, and clean up after it. */
import { deleteRunDatabases, storeName, TEST_COUCHDB_URL } from './store.js';

export const mochaHooks = {
  beforeAll(): void {
    const where = TEST_COUCHDB_URL ? ` at ${new URL(TEST_COUCHDB_URL).host}` : '';
    process.stdout.write(`store under test: ${storeName}${where}\n`);
  },
  async afterAll(): Promise<void> {
    const deleted = await deleteRunDatabases();
    if (deleted) process.stdout.write(`deleted ${deleted} databases of this run\n`);
  },
};
