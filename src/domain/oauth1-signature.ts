/**
 * OAuth 1.0 request signatures (RFC 5849), the scheme the original Learning Registry node
 * accepted for publishing (its LR/lr/lib/oauth.py, python-oauth2 HMAC-SHA1) and which its
 * publishers' tools send: spec "Authentication" 3, "switching to OAuth is supported". Only the
 * `Authorization: OAuth` header form (§3.5.1) and the HMAC methods (§3.4.2) are taken; no form
 * bodies (the services that take OAuth read JSON or XML), so the signed parameters are the
 * query's and the header's (§3.4.1.3.1). Pure functions: no node, no store.
 *
 * No maintained library implements the server side for Node.js (oauth-1.0a, last released in
 * 2019, signs requests as a client), and the algorithm is the RFC's few steps below.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type OAuthMethod = 'HMAC-SHA1' | 'HMAC-SHA256';

/** What a signature covers of a request, and how its body is checked once it is read. */
export interface SignedRequest {
  method: string;
  /** The request's URL as a client may have signed it: the advertised one (PUBLIC_URL) and the one it reached. */
  urls: string[];
  /** Asks the body reader to refuse a body `check` does not accept (src/http/signed-body.ts). */
  expectBody(check: (body: Uint8Array) => boolean): void;
}

/** The protocol parameters of an OAuth header (oauth_* only; `realm` is dropped, §3.4.1.3.1). */
export interface OAuthHeader {
  consumerKey: string;
  token: string;
  method: OAuthMethod;
  timestamp: number;
  nonce: string;
  signature: string;
  /** oauth_body_hash (the OAuth Request Body Hash extension), when the client signed the body. */
  bodyHash: string | undefined;
  /** Every oauth_* parameter but the signature, for the base string. */
  signed: [string, string][];
}

/** RFC 5849 §3.6: RFC 3986 percent-encoding of everything but the unreserved characters. */
export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function percentDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The parameters of `Authorization: OAuth k="v", …` (§3.5.1), or why it is not one we take;
 * undefined when the header is not of the OAuth scheme at all.
 */
export function parseOAuthHeader(header: string | undefined): OAuthHeader | { problem: string } | undefined {
  const match = /^OAuth\s+(.*)$/is.exec(header ?? '');
  if (!match) return undefined;
  const params = new Map<string, string>();
  for (const part of (match[1] ?? '').split(',')) {
    const pair = /^\s*([A-Za-z0-9_]+)="([^"]*)"\s*$/.exec(part);
    if (!pair) return { problem: 'the OAuth header is not a list of name="value" pairs' };
    const name = pair[1] as string;
    const value = percentDecode(pair[2] as string);
    if (value === undefined) return { problem: `the OAuth parameter ${name} is not percent-encoded text` };
    if (params.has(name)) return { problem: `the OAuth parameter ${name} is given twice` };
    if (name !== 'realm') params.set(name, value);
  }
  const need = ['oauth_consumer_key', 'oauth_token', 'oauth_signature_method', 'oauth_timestamp', 'oauth_nonce', 'oauth_signature'];
  const missing = need.filter((name) => !params.get(name));
  if (missing.length > 0) return { problem: `the OAuth header lacks ${missing.join(', ')}` };
  const method = params.get('oauth_signature_method');
  if (method !== 'HMAC-SHA1' && method !== 'HMAC-SHA256') return { problem: 'the OAuth signature method must be HMAC-SHA1 or HMAC-SHA256' };
  const version = params.get('oauth_version');
  if (version !== undefined && version !== '1.0') return { problem: 'oauth_version must be 1.0' };
  const timestamp = params.get('oauth_timestamp') as string;
  if (!/^\d{1,12}$/.test(timestamp)) return { problem: 'oauth_timestamp must be seconds since 1970' };
  const signed = [...params].filter(([name]) => name !== 'oauth_signature');
  return {
    consumerKey: params.get('oauth_consumer_key') as string,
    token: params.get('oauth_token') as string,
    method,
    timestamp: Number(timestamp),
    nonce: params.get('oauth_nonce') as string,
    signature: params.get('oauth_signature') as string,
    bodyHash: params.get('oauth_body_hash'),
    signed,
  };
}

/**
 * §3.4.1.2: scheme and host in lower case, the port only when not the scheme's default, the path
 * as sent; no query or fragment.
 */
export function baseStringUri(url: URL): string {
  return `${url.protocol}//${url.host.toLowerCase()}${url.pathname}`;
}

/** §3.4.1: METHOD & base string URI & normalized parameters (§3.4.1.3.2: encoded, sorted by name then value). */
export function signatureBaseString(method: string, uri: string, params: readonly [string, string][]): string {
  const normalized = params
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return [method.toUpperCase(), percentEncode(uri), percentEncode(normalized)].join('&');
}

/** §3.4.2: HMAC of the base string keyed by the two secrets, base64. */
export function hmacSignature(method: OAuthMethod, base: string, consumerSecret: string, tokenSecret: string): string {
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;
  return createHmac(method === 'HMAC-SHA1' ? 'sha1' : 'sha256', key).update(base).digest('base64');
}

/** Compares in constant time. */
export function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether `given` is the OAuth Request Body Hash of the body: base64 of its SHA-1 (what
 * python-oauth2 and oauthlib send, whatever the signature method), or of its SHA-256 with HMAC-SHA256.
 */
export function bodyHashMatches(body: Uint8Array, given: string, method: OAuthMethod): boolean {
  const algorithms = method === 'HMAC-SHA256' ? ['sha1', 'sha256'] : ['sha1'];
  return algorithms.some((algorithm) => sameSignature(given, createHash(algorithm).update(body).digest('base64')));
}
