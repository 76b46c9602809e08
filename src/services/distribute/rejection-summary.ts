/**
 * Why a pass of inbound distribution refused documents (spec "Distribution", destination node
 * process), bounded for a log line at the default level. The peer's replicator is told only that
 * a document was refused (`forbidden`, counted in its `docs_refused`: inbound-proxy.http.ts), so the
 * log is where an operator sees why; a peer sending a flood of bad documents must not flood it.
 * The most frequent reasons first, each with its count and one doc_ID, both clipped: the error
 * text and the doc_ID come from the peer.
 */
import { clippedText } from '../../domain/clipped-text.js';

const REASONS_LOGGED = 5;

export interface RejectionReasons {
  reasons: { error: string; count: number; example_doc_ID: string }[];
  /** Distinct reasons beyond the ones listed. */
  more_reasons: number;
}

export function rejectionReasons(rejected: { doc_ID: unknown; error: string }[], limit = REASONS_LOGGED): RejectionReasons {
  const byError = new Map<string, { count: number; example: unknown }>();
  for (const { doc_ID: docId, error } of rejected) {
    const entry = byError.get(error);
    if (entry) entry.count += 1;
    else byError.set(error, { count: 1, example: docId });
  }
  // A stable sort: among equal counts, the reason met first comes first.
  const ordered = [...byError].sort(([, a], [, b]) => b.count - a.count);
  return {
    reasons: ordered.slice(0, limit).map(([error, { count, example }]) => ({
      error: clippedText(error), count, example_doc_ID: clippedText(typeof example === 'string' ? example : String(JSON.stringify(example))),
    })),
    more_reasons: Math.max(0, ordered.length - limit),
  };
}
