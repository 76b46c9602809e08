/**
 * lr-node config show: the CONFIG kept in the node database (README "Configuration": the one an
 * earlier start was given, which a start without CONFIG applies), printed as JSON to edit and give
 * back with CONFIG=FILE, e.g. when a start without CONFIG refuses it after a rollback
 * (storage/kept-config.ts). Run where the node's DATA_DIR or COUCHDB_URL is, as the account
 * commands are.
 */
import { NodeRepository } from '../../storage/node-repository.js';
import { withToolStore } from '../store-connection.js';
import { CliError } from '../errors.js';

export async function showConfig(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await withToolStore(env, 'config', async (couch, names) => {
    const kept = await new NodeRepository(couch, names).keptConfig();
    if (!kept) throw new CliError('no CONFIG is kept in the node database: no start of this node was given CONFIG=FILE or CONFIG=defaults since its upgrade to a version that keeps one, and a start without CONFIG applies the defaults');
    process.stdout.write(`${JSON.stringify(kept.config, null, 2)}\n`);
  });
}
