/**
 * What a failed fetch says to a client: the failure in the user's terms, by its kind. The
 * fetcher's own reason names resolver and socket internals (`getaddrinfo ENOTFOUND …`, the
 * address a name resolved to) and is for the log only (issue 14, defect 7).
 */
import type { SafeFetchFailure } from './safe-fetch.js';

const PUBLIC_REASONS: Record<SafeFetchFailure, string> = {
  'invalid-url': 'the URL is not valid',
  'scheme-not-allowed': 'only http and https URLs are fetched',
  'credentials-in-url': 'URLs with credentials are not fetched',
  'dns-failure': 'its host name could not be resolved',
  'forbidden-address': 'its host is not on a public address, and this node fetches only from public ones',
  timeout: 'its server did not answer in time',
  'too-large': 'the answer is larger than this node accepts',
  'redirect-not-followed': 'it redirects to a URL this node does not follow',
  'too-many-redirects': 'it redirects too many times',
  'bad-redirect': 'it redirects to an invalid URL',
  'http-status': 'its server answered with an error status',
  'unsupported-encoding': 'the answer uses an unsupported encoding',
  'network-error': 'the connection to its server failed',
};

export function publicFetchFailure(failure: { code?: SafeFetchFailure; status?: number }): string {
  const text = failure.code ? PUBLIC_REASONS[failure.code] : 'it could not be fetched';
  return failure.code === 'http-status' && failure.status !== undefined ? `${text} (HTTP ${failure.status})` : text;
}

/** System and undici error codes of a failed `fetch()`, by what they mean to a user. */
const CODE_REASONS: [RegExp, string][] = [
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|EAI_NODATA)$/, 'host not found'],
  [/^ECONNREFUSED$/, 'connection refused'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, 'the connection was closed'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, 'no answer in time'],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, 'host unreachable'],
  [/CERT|TLS|SSL|_SIGNATURE$/, 'its TLS certificate could not be verified'],
];

/**
 * A `fetch()` that threw (undici: a TypeError "fetch failed" whose `cause` carries the system
 * error; a TimeoutError from an AbortSignal), in the user's terms. The error's own text
 * (`getaddrinfo ENOTFOUND <host>`, addresses, ports) is for the log only (issue 14, defect 7).
 */
export function publicFetchError(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const match = CODE_REASONS.find(([pattern]) => pattern.test(code));
  if (match) return match[1];
  // undici's own refusals carry no code, only these fixed messages.
  if (cause?.message === 'unexpected redirect') return 'it answered with a redirect, which is not followed';
  if (cause?.message === 'bad port') return 'its port is one that fetch refuses to use';
  return 'the connection failed';
}
