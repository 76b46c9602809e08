/**
 * A bounded label for a refused document: the class of its error message (the messages of
 * src/services/intake/document-checks.ts and the replacement rules). Details (which field,
 * which key location) stay in the publish response and the log, never in a metric label.
 */
const CLASSES: readonly [RegExp, string][] = [
  [/^invalid document/, 'invalid_document'],
  [/^rejected by filter/, 'filter'],
  [/^rejected by ToS/, 'tos'],
  [/^anon submission rejected/, 'anonymous'],
  [/^rejected submitter/, 'untrusted_submitter'],
  [/^no signature/, 'unsigned'],
  [/^(rejected signature|no public key)/, 'signature'],
  [/^too large/, 'too_large'],
  [/^rejected replacement/, 'replacement'],
  [/^do_not_distribute/, 'do_not_distribute'],
  [/doc_ID appears twice/, 'duplicate_in_batch'],
  [/^(publish|store) failed/, 'store_failed'],
];

export function rejectionReason(error: string | undefined): string {
  for (const [pattern, reason] of CLASSES) if (pattern.test(error ?? '')) return reason;
  return 'other';
}
