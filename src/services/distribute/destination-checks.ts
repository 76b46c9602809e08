/**
 * Source steps 4 and 5 for one connection (spec "Distribution"): GET /destination, the skip rules
 * (destination-info.ts) and the destination's filter, then the replication (replication-step.ts).
 * Never throws: every failure is this destination's outcome, so the others' runs go on.
 */
import type { StoredDoc } from '../../storage/documents.js';
import { scrubCredentials } from '../../net/url-credentials.js';
import { AppError } from '../../errors/app-error.js';
import { filterDescriptionProblem } from '../../domain/filters.js';
import { ORIGINAL_DESTINATION, activeFilter, fromOriginalImplementation, parseDestinationAnswer, skipReason, type LocalNodeInfo } from './destination-info.js';
import { answeredWith, fetchPeerJson } from './peer-fetch.js';
import { describe, unanswered, type OutboundEntry } from './outbound-entry.js';
import { replicateTo, type DestinationAccess } from './replication-step.js';

export async function toDestination(access: DestinationAccess, local: LocalNodeInfo, connection: StoredDoc, at: string): Promise<OutboundEntry> {
  const base = { connection_id: connection.connection_id ?? connection._id, last_sync: at };
  const url = String(connection.destination_node_url ?? '').replace(/\/+$/, '');
  const answer = await fetchPeerJson(access.peers, `${url}/destination`);
  if (!answer.ok) return unanswered(base, `${url}/destination`, `destination ${scrubCredentials(url)}`, answer, 'GET /destination failed');
  // It answered, so it was reached: an answer that is no node's is a failure, saying what came back.
  const info = parseDestinationAnswer(answer.status, answer.body);
  if (typeof info === 'string') return { ...base, outcome: 'failed', reason: answeredWith(`${url}/destination`, answer, info) };
  if (!info.active) return { ...base, outcome: 'skipped', reason: 'the destination node is not active' };
  const skip = skipReason(local, info, connection.gateway_connection === true);
  if (skip) return { ...base, outcome: 'skipped', reason: skip };
  // Replicating there would lose every document without a word: say so instead.
  if (fromOriginalImplementation(answer.body)) return { ...base, outcome: 'failed', reason: ORIGINAL_DESTINATION };
  // The filter function would pass nothing with a pattern it cannot compile: a run that
  // silently sends nothing looks like one with nothing to send. The destination's operator fixes it.
  const broken = filterDescriptionProblem(activeFilter(info.filter_description));
  if (broken) return { ...base, outcome: 'failed', reason: `the destination's filter description cannot be applied: ${broken}; nothing is replicated to it until its operator corrects the pattern` };
  try {
    return await replicateTo(access, url, info, base);
  } catch (error) {
    // A store failure (the destination's credentials, the replication) fails this destination
    // only: the others' runs go on and the outcome of each is recorded.
    return { ...base, outcome: 'failed', reason: error instanceof AppError && error.expose ? error.message : 'internal error', detail: describe(error) };
  }
}
