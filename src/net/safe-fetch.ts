/**
 * SSRF-safe text fetcher, for every URL this node fetches: those fetched on behalf of a document
 * (linked payloads, `key_location` public keys...) and distribution's requests to its destinations.
 *
 * - only the allowed schemes (default http: and https:), no credentials in the URL;
 * - the host name is resolved once (all addresses); if ANY address is not public (loopback,
 *   private, link-local, CGNAT, multicast, unspecified, their IPv4-mapped IPv6 forms... see
 *   ip-address.ts) the URL is refused, unless `allowPrivate`;
 * - the connection goes to the address that was checked: each hop gets its own undici Agent whose
 *   connector has a `lookup` that returns exactly that address, so a second DNS answer cannot
 *   rebind the request, while the Host header and TLS SNI/certificate check still use the host name;
 * - redirects are followed up to `maxRedirects` (default 3), each hop checked from scratch;
 * - one deadline (`timeoutMs`) covers DNS, connection, every redirect and the whole body;
 * - the body is abandoned as soon as it exceeds `maxBytes` (Content-Length checked first, then
 *   undici's `maxResponseSize` while it streams);
 * - no compression is requested; a compressed answer is refused (no decompression bombs);
 * - no connection reuse (the Agent of a hop is destroyed after it);
 * - a request's Authorization header goes to its URL's origin only: a redirect to another origin
 *   drops it for good, as the Fetch standard's HTTP-redirect fetch does; it is never part of a
 *   result or a failure reason.
 */
import { Agent, errors, request as undiciRequest } from 'undici';
import { classifyAddress, type AddressKind } from './ip-address.js';
import { bareHost, pinnedLookup, systemResolve, type HostResolver, type ResolvedAddress } from './host-resolution.js';
import { decodeText } from './body-text.js';

export { classifyAddress, isPublicAddress, type AddressKind } from './ip-address.js';
export type { HostResolver, ResolvedAddress } from './host-resolution.js';

export interface SafeFetcherOptions {
  /** Allow every address kind (loopback, private...). For development and tests only. */
  allowPrivate: boolean;
  /** Deadline for the whole exchange (DNS, connect, redirects, body), in milliseconds. */
  timeoutMs: number;
  /** Maximum body size in bytes. */
  maxBytes: number;
  /** Allowed URL schemes, default `['http:', 'https:']`. */
  allowedSchemes?: readonly ('http:' | 'https:')[];
  /** Redirects followed (each re-checked); 0 = none. Default 3. */
  maxRedirects?: number;
  /** Host name resolver (default: the system resolver via dns.lookup). */
  resolve?: HostResolver;
  /**
   * Decide whether an address may be contacted, overriding the built-in classification (and
   * `allowPrivate`); e.g. to allow one internal key server. Receives the literal address.
   */
  isAllowedAddress?: (address: string, family: 4 | 6, kind: AddressKind) => boolean;
  /** Value of the Accept header (default `*\/*`). */
  accept?: string;
  /** Value of the User-Agent header. */
  userAgent?: string;
  /**
   * Return an answer of any status as fetched (`ok: true`, with its status and text) instead of
   * an `http-status` failure: for a caller that reads error answers (distribution tells a 401
   * from a 403 at a destination's inbound endpoint). Default false. A redirect stays a redirect.
   */
  acceptAnyStatus?: boolean;
}

/** What one request adds to the fetcher's own options. */
export interface SafeFetchRequest {
  /** The Authorization header (RFC 9110 §11.6.2); see the module comment for where it goes. */
  authorization?: string;
}

export type SafeFetchFailure =
  | 'invalid-url'
  | 'scheme-not-allowed'
  | 'credentials-in-url'
  | 'dns-failure'
  | 'forbidden-address'
  | 'timeout'
  | 'too-large'
  | 'redirect-not-followed'
  | 'too-many-redirects'
  | 'bad-redirect'
  | 'http-status'
  | 'unsupported-encoding'
  | 'network-error';

export type SafeFetchResult =
  | {
      ok: true;
      text: string;
      /** The Content-Type header, or null when absent. */
      contentType: string | null;
      status: number;
      /** The URL the text came from, after redirects. */
      url: string;
    }
  | { ok: false; reason: string; code: SafeFetchFailure; status?: number };

export interface SafeFetcher {
  fetchText(url: string, request?: SafeFetchRequest): Promise<SafeFetchResult>;
}

const DEFAULT_SCHEMES: readonly ('http:' | 'https:')[] = ['http:', 'https:'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Errors of a connection attempt (nothing was sent): the next address of the host may still answer. */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

type Failure = Extract<SafeFetchResult, { ok: false }>;

function failure(code: SafeFetchFailure, reason: string, status?: number): Failure {
  return status === undefined ? { ok: false, code, reason } : { ok: false, code, reason, status };
}

class TimeoutSignal extends Error {
  constructor() {
    super('timeout');
  }
}

type Hop = { status: number; location: string | undefined; body: null } | { status: number; contentType: string | null; body: Buffer };

/** Create a fetcher; see the module comment for the guarantees. */
export function createSafeFetcher(options: SafeFetcherOptions): SafeFetcher {
  const schemes = options.allowedSchemes ?? DEFAULT_SCHEMES;
  const maxRedirects = options.maxRedirects ?? 3;
  const resolve = options.resolve ?? systemResolve;
  if (!(options.timeoutMs > 0) || !(options.maxBytes >= 0) || maxRedirects < 0) {
    throw new RangeError('timeoutMs must be > 0, maxBytes and maxRedirects >= 0');
  }

  function addressAllowed(address: string, family: 4 | 6): { allowed: boolean; kind: AddressKind } {
    const { kind } = classifyAddress(address);
    if (options.isAllowedAddress) return { allowed: options.isAllowedAddress(address, family, kind), kind };
    if (kind === 'invalid') return { allowed: false, kind };
    return { allowed: options.allowPrivate || kind === 'public', kind };
  }

  function checkUrl(raw: string | URL): URL | Failure {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return failure('invalid-url', `not a valid absolute URL: ${String(raw).slice(0, 200)}`);
    }
    if (!(schemes as readonly string[]).includes(url.protocol)) {
      return failure('scheme-not-allowed', `scheme ${url.protocol} is not allowed`);
    }
    if (url.username !== '' || url.password !== '') {
      return failure('credentials-in-url', 'URLs with credentials are not fetched');
    }
    if (bareHost(url) === '') return failure('invalid-url', 'URL has no host');
    return url;
  }

  /** Resolve and check the host; returns the addresses to connect to, in the resolver's order. */
  async function resolveHost(url: URL, until: Promise<never>): Promise<ResolvedAddress[] | Failure> {
    const host = bareHost(url);
    const literal = classifyAddress(host);
    let addresses: ResolvedAddress[];
    if (literal.kind !== 'invalid') {
      addresses = [{ address: host, family: literal.family === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await Promise.race([resolve(host), until]);
      } catch (err) {
        if (err instanceof TimeoutSignal) throw err;
        return failure('dns-failure', `cannot resolve ${host}: ${(err as Error).message}`);
      }
      if (addresses.length === 0) return failure('dns-failure', `${host} has no address`);
    }
    for (const { address, family } of addresses) {
      const { allowed, kind } = addressAllowed(address, family);
      if (!allowed) {
        return failure('forbidden-address', `${host} resolves to a non-public address (${address}: ${kind})`);
      }
    }
    return addresses;
  }

  /** One hop on its own undici Agent (no reuse), connecting to the checked address only. */
  async function request(url: URL, target: ResolvedAddress, signal: AbortSignal, authorization: string | undefined): Promise<Hop | Failure> {
    const dispatcher = new Agent({ connect: { lookup: pinnedLookup(target.address, target.family) }, maxResponseSize: options.maxBytes });
    const headers: Record<string, string> = { accept: options.accept ?? '*/*', 'accept-encoding': 'identity', connection: 'close' };
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    if (authorization !== undefined) headers.authorization = authorization;
    try {
      const { statusCode: status, headers: responseHeaders, body } = await undiciRequest(url, { dispatcher, signal, headers });
      const header = (name: string): string | undefined => [responseHeaders[name]].flat()[0];
      if (REDIRECT_STATUSES.has(status) && header('location') !== undefined) return { status, location: header('location'), body: null };
      const encoding = (header('content-encoding') ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== '') return failure('unsupported-encoding', `content-encoding ${encoding} is not accepted`, status);
      const declared = Number(header('content-length'));
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        return failure('too-large', `body of ${declared} bytes exceeds the limit of ${options.maxBytes}`, status);
      }
      try {
        return { status, contentType: header('content-type') ?? null, body: Buffer.from(await body.arrayBuffer()) };
      } catch (err) {
        if (err instanceof errors.ResponseExceededMaxSizeError) return failure('too-large', `body exceeds the limit of ${options.maxBytes} bytes`, status);
        throw err;
      }
    } catch (err) {
      throw signal.aborted ? new TimeoutSignal() : err;
    } finally {
      dispatcher.destroy().catch(() => undefined);
    }
  }

  /**
   * Each checked address in turn until a connection is made, as a browser's connection attempts
   * do (RFC 8305 §4, without the racing): `localhost` may resolve to ::1 first where the server
   * listens on 127.0.0.1 only. Only a failure to connect moves on; any other failure is final.
   */
  async function requestAny(url: URL, targets: ResolvedAddress[], signal: AbortSignal, authorization: string | undefined): Promise<Hop | Failure> {
    for (const [index, target] of targets.entries()) {
      try {
        return await request(url, target, signal, authorization);
      } catch (err) {
        if (index === targets.length - 1 || !CONNECT_FAILURES.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
    throw new Error('no address to connect to');
  }

  async function fetchText(rawUrl: string, init: SafeFetchRequest = {}): Promise<SafeFetchResult> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const until = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new TimeoutSignal());
      }, options.timeoutMs);
    });
    until.catch(() => undefined); // handled where raced
    try {
      let current: string | URL = rawUrl;
      let authorization = init.authorization;
      for (let redirects = 0; ; redirects++) {
        const url = checkUrl(current);
        if ('ok' in url) return url;
        const targets = await resolveHost(url, until);
        if ('ok' in targets) return targets;
        const hop = await Promise.race([requestAny(url, targets, controller.signal, authorization), until]);
        if ('ok' in hop) return hop;
        if (hop.body === null) {
          const location = hop.location ?? '';
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            return failure('bad-redirect', `invalid redirect location ${location.slice(0, 200)}`, hop.status);
          }
          if (maxRedirects === 0) {
            return failure('redirect-not-followed', `redirect (${hop.status}) to ${next.href} not followed`, hop.status);
          }
          if (redirects >= maxRedirects) {
            return failure('too-many-redirects', `more than ${maxRedirects} redirects`, hop.status);
          }
          if (next.origin !== url.origin) authorization = undefined;
          current = next;
          continue;
        }
        if (!options.acceptAnyStatus && (hop.status < 200 || hop.status > 299)) {
          return failure('http-status', `HTTP status ${hop.status}`, hop.status);
        }
        return { ok: true, text: decodeText(hop.body, hop.contentType), contentType: hop.contentType, status: hop.status, url: url.href };
      }
    } catch (err) {
      if (err instanceof TimeoutSignal || controller.signal.aborted) {
        return failure('timeout', `no complete answer within ${options.timeoutMs} ms`);
      }
      return failure('network-error', (err as Error).message);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  return { fetchText };
}
