/**
 * Text a peer or a stored document supplied, shortened for a message that is logged and kept
 * (a distribution outcome in node_status, a log line): a 1 MiB answer must not become a 1 MiB
 * /status. The cut is marked so nobody takes the rest for the whole.
 */
const CLIPPED_TEXT_MAX = 200;

export function clippedText(text: string, max = CLIPPED_TEXT_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
