/**
 * The network_admin credentials this node presents to each destination's inbound endpoint, in the
 * node database's `distribution_credentials` document:
 * `{"destinations": {"<destination_node_url>": {"user", "password"}}}`. An ordinary document,
 * written settled (reconcileDoc, settled-writes.ts) as the node's key pair and secrets are: this
 * version's earlier releases kept it in `_local/distribution_credentials`, and a CouchDB cluster
 * does not keep a `_local/` document consistent across shard copies (documents.ts, createOnce),
 * so distribution could be handed a missing or an older password depending on the copy that
 * answered (a code review's finding). That copy is read until the first write carries it over and
 * removes it. The node database is never replicated and its documents are never served; this one
 * has no doc_type, so no listing of node documents (nodeDocsOfType) reads it.
 * Read by distribution (distribution-outbound.ts), written by the operator's command
 * (`lr-node destination`) and the test-network script.
 */
import type { Couch } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, reconcileDoc, removeIfPresent, type StoredDoc, database, type Database } from './documents.js';

export const DESTINATION_CREDENTIALS_ID = 'distribution_credentials';
/** Where earlier releases kept them. */
const LEGACY_ID = '_local/distribution_credentials';

export interface DestinationCredentials { user: string; password: string }

/** One destination, however many trailing slashes its URL was given with. */
export const destinationKey = (url: string): string => url.replace(/\/+$/, '');

const destinationsOf = (doc: StoredDoc | undefined): Record<string, DestinationCredentials> => (doc?.destinations as Record<string, DestinationCredentials> | undefined) ?? {};

export class DestinationCredentialsRepository {
  private readonly node: Database;

  constructor(couch: Couch, names: DatabaseNames) {
    this.node = database(couch, names.node);
  }

  private async all(): Promise<Record<string, DestinationCredentials>> {
    return destinationsOf(await getOrUndefined(this.node, DESTINATION_CREDENTIALS_ID) ?? await getOrUndefined(this.node, LEGACY_ID));
  }

  async credentialsFor(destinationUrl: string): Promise<DestinationCredentials | undefined> {
    const entry = (await this.all())[destinationKey(destinationUrl)];
    return entry && typeof entry.user === 'string' && typeof entry.password === 'string' ? entry : undefined;
  }

  /** Sets (or, with `undefined`, removes) one destination's credentials, keeping the others. */
  async setCredentials(destinationUrl: string, credentials: DestinationCredentials | undefined): Promise<void> {
    const legacy = await getOrUndefined(this.node, LEGACY_ID);
    await reconcileDoc(this.node, DESTINATION_CREDENTIALS_ID, (existing) => {
      const destinations = { ...destinationsOf(existing ?? legacy) };
      if (credentials) destinations[destinationKey(destinationUrl)] = credentials;
      else delete destinations[destinationKey(destinationUrl)];
      return { _id: DESTINATION_CREDENTIALS_ID, destinations };
    });
    // Carried over: the old copy of the passwords goes.
    if (legacy) await removeIfPresent(this.node, LEGACY_ID);
  }

  /** Each destination with its user name; passwords never leave the store this way. */
  async list(): Promise<{ url: string; user: string }[]> {
    return Object.entries(await this.all()).map(([url, entry]) => ({ url, user: String(entry.user) })).sort((a, b) => a.url.localeCompare(b.url));
  }
}
