/**
 * `GET /destination` (spec "Distribution"): what a source node learns about a destination, and
 * the source's skip rules (source step 4), as pure functions.
 */
import { clippedText } from '../../domain/clipped-text.js';
import type { FilterDescription } from '../../domain/filters.js';
import { isRecord } from '../../domain/is-record.js';

/** Where a node receives distribution (the inbound replication endpoint, inbound-proxy.http.ts). */
export const INBOUND_PATH = '/incoming';

export interface TargetNodeInfo {
  active: boolean;
  node_id: string;
  network_id: string;
  community_id: string;
  gateway_node: boolean;
  social_community: boolean;
  /** Where a source replicates to (the node's inbound endpoint). */
  incoming_url?: string;
  /** The destination's filter description; absent or `{}` when it has none. */
  filter_description?: FilterDescription | Record<string, never>;
}

export interface LocalNodeInfo { node_id: string; network_id: string; community_id: string; gateway_node: boolean; social_community: boolean }

/**
 * The error a peer's JSON answer reports, clipped: the spec's `{"OK": false, "error"}` (this
 * node's and the original's JSON errors), or, with no `OK`, CouchDB's `{"error", "reason"}` (what
 * a destination's inbound endpoint passes on from its store).
 */
function reportedError(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = typeof body.error === 'string' && body.error !== '' ? body.error : undefined;
  const ok = body.OK ?? body.ok;
  if (ok === false) return clippedText(error ?? 'unknown');
  if (ok !== undefined || error === undefined) return undefined;
  return clippedText(typeof body.reason === 'string' && body.reason !== '' ? `${error}: ${body.reason}` : error);
}

/**
 * Reads a peer's answer to GET /destination: the node's information, or what is wrong with the
 * answer (the caller names the request, status and content type: peer-fetch.ts answeredWith). The
 * original implementation sends the key `taget_node_info` and a lowercase `ok`
 * (shared/samples/node-config/destination-response-example.json); both are accepted.
 */
export function parseDestinationAnswer(status: number, body: unknown): TargetNodeInfo | string {
  const error = reportedError(body);
  if (error !== undefined) return `the destination reports an error: ${error}`;
  // A web server, a proxy's error page, a wrong path: anything but a node's JSON answer.
  if (status !== 200 || !isRecord(body)) return 'not a Learning Registry node\'s /destination';
  const info = body.target_node_info ?? body.taget_node_info;
  if (!isRecord(info)) return 'the answer has no target_node_info';
  const text = (key: string): string | undefined => (typeof info[key] === 'string' ? info[key] : undefined);
  const nodeId = text('node_id');
  const networkId = text('network_id');
  const communityId = text('community_id');
  if (!nodeId || !networkId || !communityId) return 'target_node_info lacks node_id, network_id or community_id';
  const result: TargetNodeInfo = {
    active: info.active !== false,
    node_id: nodeId,
    network_id: networkId,
    community_id: communityId,
    gateway_node: info.gateway_node === true,
    social_community: info.social_community === true,
  };
  const incoming = text('incoming_url');
  if (incoming !== undefined && incoming !== '') {
    if (!isHttpUrl(incoming)) return 'target_node_info.incoming_url is not an absolute http or https URL';
    result.incoming_url = incoming;
  }
  if (isRecord(info.filter_description)) result.filter_description = info.filter_description as FilterDescription;
  return result;
}

/**
 * What is wrong with the answer of a destination's inbound endpoint to the probe (GET, as a
 * replicator's first request: a CouchDB database's information), or undefined when it will do.
 * 401 and 403 are the credentials' (replication-step.ts).
 */
export function inboundProbeProblem(status: number, body: unknown): string | undefined {
  if (status === 200 && isRecord(body)) return undefined;
  const error = reportedError(body);
  return error !== undefined ? `the destination reports an error: ${error}` : 'not a Learning Registry node\'s inbound endpoint';
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * An answer only the original implementation gives: its misspelt key alone (this node sends both,
 * destination.service.ts). Such a destination runs every arriving document through schemas with
 * `additionalProperties: false` and deletes the ones that fail, unlogged to the source
 * (LearningRegistry LR/lr/model/resource_data_monitor/incoming_copy_handler.py): every document
 * this node holds carries `publish_node`, which spec "Publish" step 6 has it set, and node-private
 * fields, so none would be kept there.
 */
export function fromOriginalImplementation(body: unknown): boolean {
  return isRecord(body) && body.target_node_info === undefined && isRecord(body.taget_node_info);
}

export const ORIGINAL_DESTINATION = 'the destination runs the original Learning Registry implementation (it answers taget_node_info only), whose schema check deletes every arriving document with a field its schemas do not list, such as the spec\'s publish_node: nothing is replicated to it';

/** Source step 4: the reason a connection is skipped (silently), or undefined to distribute. */
export function skipReason(source: LocalNodeInfo, destination: TargetNodeInfo, gatewayConnection: boolean): string | undefined {
  if (source.community_id !== destination.community_id && (!source.social_community || !destination.social_community)) {
    return 'the communities differ and one of them is not a social community';
  }
  if (!gatewayConnection && source.network_id !== destination.network_id) return 'not a gateway connection and the networks differ';
  if (gatewayConnection && source.network_id === destination.network_id) return 'a gateway connection within one network';
  if (gatewayConnection && (!source.gateway_node || !destination.gateway_node)) return 'a gateway connection where a node is not a gateway node';
  return undefined;
}

/** The filter description passed to the replication filter, or undefined when none is active. */
export function activeFilter(description: TargetNodeInfo['filter_description']): FilterDescription | undefined {
  const filter = description as FilterDescription | undefined;
  if (!filter || filter.active === false || !Array.isArray(filter.filter) || filter.filter.length === 0) return undefined;
  return filter;
}
