/**
 * The record of a distribution run whose node process stopped before it ended (killed, crashed):
 * it never recorded itself, and its lease, no longer renewed, is left behind in the node database
 * until a later run takes it over (src/services/distribute/run-lease.ts records it then). /status
 * reports the same record from the moment the lease has expired (node-info.service.ts), so that a
 * run killed on CouchDB is not invisible until the next run.
 */

/** last_out_run's error for such a run (README "Source"). */
export const ABANDONED_RUN = 'the process running it stopped before it ended';

/** `finished` is null: when it stopped is not known, only that its lease was not renewed after. */
export function abandonedRunRecord(started: string): { started: string; finished: null; OK: false; error: string } {
  return { started, finished: null, OK: false, error: ABANDONED_RUN };
}
