/**
 * lr-node destination set|remove|list: the credentials this node presents to a destination's
 * inbound endpoint when it distributes (a network_admin account of the destination), kept in the
 * node database's `distribution_credentials` document (storage/destination-credentials.ts). Run
 * where the node's DATA_DIR or COUCHDB_URL is, as the account commands are. The password comes
 * from a no-echo prompt or standard input, never from arguments, and is never printed.
 */
import { DestinationCredentialsRepository } from '../../storage/destination-credentials.js';
import { withToolStore } from '../store-connection.js';
import { INSTEAD_OF_PROMPT, readHidden, readStdin } from '../credentials.js';
import { CliError, usageError } from '../errors.js';

export type DestinationAction = 'set' | 'remove' | 'list';
export interface DestinationOptions { user?: string; passwordStdin?: boolean; json?: boolean }

/** A destination_node_url as connectivity documents hold it: http(s), no credentials, no query. */
function destinationUrl(text: string | undefined): string {
  let url: URL;
  try {
    url = new URL(text ?? '');
  } catch {
    throw usageError(`give the destination node's URL (its destination_node_url): ${text ?? ''}`);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw usageError('the destination URL is http(s)://host[:port][/path], without credentials, query or fragment');
  }
  return url.href.replace(/\/+$/, '');
}

async function readPassword(user: string, fromStdin: boolean): Promise<string> {
  const password = fromStdin ? await readStdin() : await readHidden(`password of ${user} at the destination: `, INSTEAD_OF_PROMPT.store);
  if (password.length === 0) throw new CliError('the password is empty');
  if (!fromStdin && (await readHidden('again: ', INSTEAD_OF_PROMPT.store)) !== password) throw new CliError('the passwords differ');
  return password;
}

export async function destination(action: DestinationAction, url: string | undefined, options: DestinationOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const target = action === 'list' ? undefined : destinationUrl(url);
  if (action === 'set' && !options.user) throw usageError('give --user: the destination\'s network_admin account');
  await withToolStore(env, 'destination', async (couch, names) => {
    const credentials = new DestinationCredentialsRepository(couch, names);
    if (action === 'list') {
      const listed = await credentials.list();
      if (options.json) process.stdout.write(`${JSON.stringify(listed)}\n`);
      else for (const entry of listed) process.stdout.write(`${entry.url}\tuser=${entry.user}\n`);
      return;
    }
    const destinationKey = target as string;
    if (action === 'remove') {
      if (!(await credentials.credentialsFor(destinationKey))) throw new CliError(`no credentials for ${destinationKey}`);
      await credentials.setCredentials(destinationKey, undefined);
      process.stdout.write(`credentials for ${destinationKey} removed\n`);
      return;
    }
    const user = options.user as string;
    await credentials.setCredentials(destinationKey, { user, password: await readPassword(user, options.passwordStdin === true) });
    process.stdout.write(`credentials for ${destinationKey} set (user ${user}); used from the next /distribute\n`);
  });
}
