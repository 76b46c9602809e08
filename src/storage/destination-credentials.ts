/**
 * The network_admin credentials this node presents to each destination's inbound endpoint, in the
 * node database's `_local/distribution_credentials` document (`_local`: never replicated, never in
 * a view or `_all_docs`): `{"destinations": {"<destination_node_url>": {"user", "password"}}}`.
 * Read by distribution (distribution-outbound.ts), written by the operator's command
 * (`lr-node destination`) and the test-network script.
 */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, reconcileDoc } from './documents.js';

export const DESTINATION_CREDENTIALS_ID = '_local/distribution_credentials';

export interface DestinationCredentials { user: string; password: string }

/** One destination, however many trailing slashes its URL was given with. */
export const destinationKey = (url: string): string => url.replace(/\/+$/, '');

export class DestinationCredentialsRepository {
  private readonly node: DocumentScope<unknown>;

  constructor(couch: Couch, names: DatabaseNames) {
    this.node = couch.use(names.node);
  }

  private async all(): Promise<Record<string, DestinationCredentials>> {
    const doc = await getOrUndefined(this.node, DESTINATION_CREDENTIALS_ID);
    return (doc?.destinations as Record<string, DestinationCredentials> | undefined) ?? {};
  }

  async credentialsFor(destinationUrl: string): Promise<DestinationCredentials | undefined> {
    const entry = (await this.all())[destinationKey(destinationUrl)];
    return entry && typeof entry.user === 'string' && typeof entry.password === 'string' ? entry : undefined;
  }

  /** Sets (or, with `undefined`, removes) one destination's credentials, keeping the others. */
  async setCredentials(destinationUrl: string, credentials: DestinationCredentials | undefined): Promise<void> {
    await reconcileDoc(this.node, DESTINATION_CREDENTIALS_ID, (existing) => {
      const destinations = { ...((existing?.destinations as Record<string, DestinationCredentials> | undefined) ?? {}) };
      if (credentials) destinations[destinationKey(destinationUrl)] = credentials;
      else delete destinations[destinationKey(destinationUrl)];
      return { _id: DESTINATION_CREDENTIALS_ID, destinations };
    });
  }

  /** Each destination with its user name; passwords never leave the store this way. */
  async list(): Promise<{ url: string; user: string }[]> {
    return Object.entries(await this.all()).map(([url, entry]) => ({ url, user: String(entry.user) })).sort((a, b) => a.url.localeCompare(b.url));
  }
}
