/**
 * What a destination's last run sent, for lr-node distribute and lr-node status: the documents
 * written and, when there were some, those the destination refused by its rules (why is in the
 * destination's log). Nothing when the counts are unknown.
 */
export function sentCounts(entry: { docs_written?: unknown; docs_refused?: unknown }, separator: string): string {
  if (typeof entry.docs_written !== 'number') return '';
  const refused = typeof entry.docs_refused === 'number' && entry.docs_refused > 0 ? `, ${entry.docs_refused} refused by the destination (its log says why)` : '';
  return `${separator}${entry.docs_written} written${refused}`;
}
