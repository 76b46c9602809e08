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

/**
 * Whether the same fetch may succeed later: the server did not answer (in time, or at all), its
 * name did not resolve, or it answered a server error or 429. A refused address, a bad URL, an
 * answer too large or a 4xx stays as it is until someone changes it (the policy, the URL, the server).
 */
export function isTransientFetchFailure(failure: { code?: SafeFetchFailure; status?: number }): boolean {
  if (failure.code === 'timeout' || failure.code === 'network-error' || failure.code === 'dns-failure') return true;
  return failure.code === 'http-status' && (failure.status === undefined || failure.status >= 500 || failure.status === 429);
}
