/**
 * How distribution asks a destination (GET /destination, and the probe of its inbound endpoint):
 * through a guarded fetcher of its own (net/safe-fetch.ts: SSRF checks, timeouts and size caps)
 * built by createPeerFetcher, once, in src/deps.ts, beside the node's two fetchers for documents'
 * links (public addresses only, and private ones allowed), and passed in.
 */
import { createSafeFetcher, type SafeFetcher } from '../../net/safe-fetch.js';
import { publicFetchFailure } from '../../net/fetch-failure.js';
import { clippedText } from '../../domain/clipped-text.js';
import { scrubCredentials } from '../../net/url-credentials.js';

/** A destination's answers are small JSON documents; a larger one is not read (a peer could send any size). */
const PEER_ANSWER_MAX_BYTES = 1024 * 1024;
const PEER_TIMEOUT_MS = 10_000;

/**
 * Destinations are configured by the operator (connectivity documents) and commonly sit on a
 * private network or on loopback, so every address kind is allowed here, unlike the fetchers of
 * URLs that documents name (src/deps.ts). A redirect is not followed: only the origin the operator
 * configured is spoken to. Any status is an answer: the probe tells a 401 from a 403.
 */
export function createPeerFetcher(): SafeFetcher {
  return createSafeFetcher({
    allowPrivate: true, timeoutMs: PEER_TIMEOUT_MS, maxBytes: PEER_ANSWER_MAX_BYTES, maxRedirects: 0,
    accept: 'application/json', acceptAnyStatus: true,
  });
}

/**
 * A peer's answer: its status, content type and body as JSON (undefined when it is not JSON); or
 * why there is none, in the user's terms (`reason`) and in the fetcher's own words, for the log (`detail`).
 */
export type PeerAnswer = { ok: true; status: number; contentType: string | null; body: unknown } | PeerFailure;
/** `status`: what the peer answered when it did, but not in a form this node reads (too large, a redirect, an encoding). */
export type PeerFailure = { ok: false; reason: string; detail: string; status?: number };

export async function fetchPeerJson(fetcher: SafeFetcher, url: string, authorization?: string): Promise<PeerAnswer> {
  const fetched = await fetcher.fetchText(url, authorization === undefined ? {} : { authorization });
  if (!fetched.ok) return { ok: false, reason: publicFetchFailure(fetched), detail: fetched.reason, ...(fetched.status === undefined ? {} : { status: fetched.status }) };
  const answer = { ok: true as const, status: fetched.status, contentType: fetched.contentType };
  try {
    return { ...answer, body: JSON.parse(fetched.text) as unknown };
  } catch {
    return { ...answer, body: undefined };
  }
}

/**
 * An answer a peer gave that this node cannot use, as a reason that names the request and what
 * came back, e.g. "GET http://host/destination answered HTTP 404 (text/html): not a Learning
 * Registry node's /destination". The peer was reached (no connection failure), so its status and
 * media type are what tell a wrong URL, or a proxy's error page, from a node's own error.
 */
export function answeredWith(url: string, answer: { status: number; contentType?: string | null }, what: string): string {
  const type = answer.contentType?.split(';')[0]?.trim();
  const media = answer.contentType === undefined ? '' : ` (${type ? clippedText(type, 100) : 'no content type'})`;
  return `GET ${scrubCredentials(url)} answered HTTP ${answer.status}${media}: ${what}`;
}
