/** The answer of /status (node-info.service.ts): what it reports, and when each part counts as current. */

export interface NodeStatus {
  OK: true;
  node_id: unknown;
  node_name: unknown;
  active: boolean;
  /** Live documents as last counted; null until a first count (its view is being built). */
  doc_count: number | null;
  install_time: unknown;
  start_time: unknown;
  process_start_time: string;
  earliestDatestamp: string | null;
  /** true only when doc_count and earliestDatestamp are known to include every write so far. */
  doc_count_current: boolean;
  /**
   * true only when every view is known to have indexed the whole database; false while one is
   * behind or being built, or when no check has finished since the last write (reads of a stale
   * view may wait or 503).
   */
  views_current: boolean;
  /** The views not known to have indexed the database up to this call's update_seq. */
  stale_views: string[];
  /** The database's own counters (every document, tombstones and design documents included). */
  store: { doc_count: number; update_seq: string | number };
  last_in_sync: unknown;
  last_out_sync: unknown;
  last_out_run: unknown;
  /**
   * The distribution run in progress in any node process (its start), or null: the run's lease
   * (lease-repository.ts), which an expired one is not. last_out_run is the last run that ended.
   */
  out_run_in_progress: { since: string } | null;
  outbound: unknown;
  timestamp: string;
}
