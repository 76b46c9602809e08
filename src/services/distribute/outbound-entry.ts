/**
 * What a distribution run answers and records for each destination (spec "Distribution", source
 * steps 4 and 5; /status's node_status.outbound), shared by the run (distribute.service.ts), the
 * destination's checks (destination-checks.ts) and the replication step (replication-step.ts).
 */
import { scrubCredentials } from '../../net/url-credentials.js';
import { answeredWith, type PeerFailure } from './peer-fetch.js';

/**
 * The spec's `{OK, error}`. A destination's failure is no error to the caller (spec "Distribution"),
 * so `OK` stays true; `outbound` (an extension, the entries /status records for this run) says
 * what became of each destination, so the caller sees a failure in the answer it waited for.
 */
export interface DistributeAnswer { OK: boolean; error: string; running_since?: string; outbound?: Record<string, Omit<OutboundEntry, 'detail'>> }

/** `unreachable`: nothing answered (no connection, no answer in time, no such name); `failed`: it answered, but not as a node to replicate to, or the replication failed. */
export type Outcome = 'ok' | 'skipped' | 'unreachable' | 'failed';
/**
 * One destination's last run, as /status serves it (public): `reason` says what failed in the
 * user's terms; `detail` (the fetcher's or the store's own words) goes to the log only and is
 * never recorded (issue 14, defect 7). `docs_refused`: documents the destination refused by its
 * rules (the reasons are in its log); they are not sent again. The counts are missing when the
 * replication failed (unknown).
 */
export interface OutboundEntry { connection_id: unknown; last_sync: string; outcome: Outcome; reason?: string; detail?: string; docs_written?: number; docs_refused?: number; docs_read?: number }

/** What every entry of one connection in one run starts with. */
export type EntryBase = Pick<OutboundEntry, 'connection_id' | 'last_sync'>;

/** The error's own text, credentials scrubbed: for the log only (it names resolver internals). */
export const describe = (error: unknown): string => scrubCredentials(error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error));

/**
 * A GET of `url` that gave no answer this node reads: what failed in the user's terms (`reason`),
 * and in the fetcher's own words for the log (`detail`). A peer that answered (a redirect, an
 * answer too large) was reached: that is a failure naming its status, not `unreachable`.
 */
export function unanswered(base: EntryBase, url: string, what: string, failure: PeerFailure, logged: string): OutboundEntry {
  const detail = `${logged}: ${scrubCredentials(failure.detail)}`;
  if (failure.status !== undefined) return { ...base, outcome: 'failed', reason: answeredWith(url, { status: failure.status }, failure.reason), detail };
  return { ...base, outcome: 'unreachable', reason: `${what} could not be reached: ${failure.reason}`, detail };
}
