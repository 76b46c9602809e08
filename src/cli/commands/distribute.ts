/** lr-node distribute URL: POST /distribute as a network_admin, then the outcome per destination from /status. */
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { endpoint, okJson, request, type RetryPolicy } from '../http-client.js';
import { sentCounts } from '../sent-counts.js';

interface Outbound { outcome?: string; reason?: string; last_sync?: string; docs_written?: number; docs_refused?: number }

/**
 * The outcomes that make the command fail (exit 1), so that cron or a script sees a run that did
 * not reach a destination; `skipped` is the spec's skip rules doing their work, no failure.
 */
const FAILED_OUTCOMES = new Set(['failed', 'unreachable']);

export async function distribute(url: string, authorization: string | undefined, json: boolean, policy: RetryPolicy): Promise<ExitCode> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (authorization) headers.authorization = authorization;
  // No retry of the POST itself on 503: a second call during a run only reports that run anyway.
  const answer = okJson(await request(endpoint(url, 'distribute'), { method: 'POST', headers }, policy), 'POST /distribute');
  // The node ran nothing for this call: the run in progress is another's (README "Exit codes").
  if (typeof answer.running_since === 'string') {
    process.stdout.write(json ? `${JSON.stringify({ OK: false, running_since: answer.running_since, destinations: {} })}\n`
      : `nothing distributed: a distribution run is in progress since ${answer.running_since}; see lr-node status ${url} for its outcome, or run this again when it has ended\n`);
    return EXIT.tryLater;
  }
  const status = okJson(await request(endpoint(url, 'status'), { headers: { accept: 'application/json' } }, policy), 'GET /status');
  const all = (status.outbound ?? {}) as Record<string, Outbound>;
  // The entries of this run: the ones stamped with the node's last outbound sync.
  const destinations = Object.fromEntries(Object.entries(all).filter(([, entry]) => !status.last_out_sync || entry.last_sync === status.last_out_sync));
  const failed = Object.values(destinations).some((entry) => FAILED_OUTCOMES.has(entry.outcome ?? ''));
  if (json) {
    process.stdout.write(`${JSON.stringify({ OK: !failed, last_out_sync: status.last_out_sync ?? null, destinations })}\n`);
  } else {
    if (Object.keys(destinations).length === 0) process.stdout.write('distributed: the node has no active connection\n');
    for (const [destination, entry] of Object.entries(destinations)) {
      process.stdout.write(`${destination}\t${entry.outcome ?? '?'}${sentCounts(entry, '\t')}${entry.reason ? `\t${entry.reason}` : ''}\n`);
    }
  }
  return failed ? EXIT.failure : EXIT.ok;
}
