/**
 * Source step 5 for one destination that passed its checks (destination-checks.ts): the inbound
 * endpoint's origin and its probe (the spec's "SHOULD verify that the destination is reachable"),
 * then the one-shot filtered replication from resource_data to it. Its own file so that where
 * the store's replicator is sent, with which credentials and what it selects reads in one place,
 * apart from the checks that decide whether to send at all.
 */
import { replicationEndpoint, type DistributionRepository } from '../../storage/distribution-outbound.js';
import { scrubCredentials } from '../../net/url-credentials.js';
import { basicAuthorization } from '../../net/basic-authorization.js';
import { LIVE_FOR_DISTRIBUTION_SELECTOR } from '../../domain/filters.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import { INBOUND_PATH, activeFilter, inboundProbeProblem, type TargetNodeInfo } from './destination-info.js';
import { answeredWith, fetchPeerJson } from './peer-fetch.js';
import { unanswered, type EntryBase, type OutboundEntry } from './outbound-entry.js';

/** The design-doc filter (design-docs/resource_data/distribute/filters/live_for_destination.js). */
export const REPLICATION_FILTER = 'distribute/live_for_destination';

/** What a run asks a destination through: the peer fetcher (peer-fetch.ts) and the store's replicator. */
export interface DestinationAccess { peers: SafeFetcher; repo: DistributionRepository }

/** Why a destination refused this node at its inbound endpoint, and what the operator does about it. */
function credentialRefusal(url: string, status: number, sent: boolean): string {
  const destination = scrubCredentials(url);
  if (status === 403) return `the destination refused this node's account (HTTP 403): the account set for it must be a network_admin of ${destination}`;
  return sent
    ? `the destination refused this node's credentials (HTTP 401): set the right ones with lr-node destination set ${destination} --user NAME`
    : `this node holds no credentials for the destination (HTTP 401): set them with lr-node destination set ${destination} --user NAME`;
}

/** Throws on a store failure (the destination's credentials, the replication): the caller makes it this destination's outcome. */
export async function replicateTo(access: DestinationAccess, url: string, info: TargetNodeInfo, base: EntryBase): Promise<OutboundEntry> {
  const incoming = new URL(info.incoming_url ?? `${url}${INBOUND_PATH}`);
  // The store's replicator goes where incoming_url says, so a peer could steer it (and this
  // node's probe) to any address, an internal one included: only the origin the operator
  // configured is used.
  if (incoming.origin !== new URL(url).origin) {
    return { ...base, outcome: 'failed', reason: `the destination advertises its inbound endpoint on another origin (${scrubCredentials(incoming.origin)}) than its connection (${scrubCredentials(new URL(url).origin)}); only the connection's origin is replicated to: if that is the destination's address, set destination_node_url to it` };
  }
  const credentials = await access.repo.credentialsFor(url);
  const authorization = credentials ? basicAuthorization(credentials.user, credentials.password) : undefined;
  // The spec's "SHOULD verify that the destination is reachable": its inbound endpoint answers us.
  const probe = await fetchPeerJson(access.peers, incoming.toString(), authorization);
  if (!probe.ok) return unanswered(base, incoming.toString(), `the inbound endpoint ${scrubCredentials(incoming.toString())}`, probe, 'the inbound endpoint did not answer');
  if (probe.status === 401 || probe.status === 403) return { ...base, outcome: 'failed', reason: credentialRefusal(url, probe.status, credentials !== undefined) };
  const unusable = inboundProbeProblem(probe.status, probe.body);
  if (unusable) return { ...base, outcome: 'failed', reason: answeredWith(incoming.toString(), probe, unusable) };
  const filter = activeFilter(info.filter_description);
  // query_params travel in the _changes URL query, so the description is one JSON string.
  const result = await access.repo.replicate(replicationEndpoint(incoming.toString(), authorization), filter
    ? { filter: REPLICATION_FILTER, queryParams: { filter_description: JSON.stringify(filter) } }
    : { filter: REPLICATION_FILTER, queryParams: {}, selector: { ...LIVE_FOR_DISTRIBUTION_SELECTOR } });
  const { counts } = result;
  return {
    ...base,
    outcome: result.ok ? 'ok' : 'failed',
    // Unknown counts are left out (a failed replication), not 0: documents may have arrived.
    ...(counts ? { docs_written: counts.docsWritten, docs_refused: counts.writeFailures, docs_read: counts.docsRead } : {}),
    ...(result.error ? { reason: result.error } : {}),
    ...(result.detail ? { detail: result.detail } : {}),
  };
}
