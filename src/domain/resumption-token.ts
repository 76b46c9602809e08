/**
 * Stateless, tamper-proof resumption tokens for every paged service (obtain, slice, JSON
 * harvest, OAI-PMH). A token is base64url(JSON payload) + "." + base64url(HMAC-SHA256), keyed
 * by the node's shared secret (kept in CouchDB), so any node process can serve the next page.
 * The payload carries a keyset cursor (the last view key returned), never an offset, so page
 * 10,000 costs what page 1 costs; and a fingerprint of the request, so a token cannot be
 * replayed with other arguments.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface TokenPayload {
  /** Which service and query family issued it, e.g. "obtain:all". */
  s: string;
  /** Fingerprint of the request arguments the token continues. */
  q: string;
  /** Keyset cursor: the last view key returned. */
  k: unknown;
  /** Records returned before the next page (OAI-PMH cursor). */
  n: number;
  /** Issued at (ms since epoch). */
  t: number;
  /** Service-specific extra state (e.g. the snapshot high-water mark). */
  x?: unknown;
  /** The view key layout the cursor belongs to (KEY_LAYOUT). */
  v?: number;
}

/**
 * The layout of the view keys a cursor holds. 3: text users choose is keyed as code units in
 * digits and lower-case letters, one character for most (src/storage/view-keys.ts, session 32).
 * 2: 4 hex digits a code unit (session 25). 1 (no `v`): doc_IDs as text. A cursor of another
 * layout would resume at an arbitrary place in the new keys: such a token is refused with a
 * reason that says to start the list again.
 */
export const KEY_LAYOUT = 3;

/**
 * Services whose cursor holds no view key: slice's is a node_timestamp and a doc_ID as they are
 * (its repository builds the view key), so a slice token issued before a layout change still
 * resumes where it stopped.
 */
const LAYOUT_FREE_SERVICES: ReadonlySet<string> = new Set(['slice']);

export type TokenCheck = { ok: true; payload: TokenPayload } | { ok: false; reason: string };

export const TOKEN_LIFETIME_MS = 48 * 60 * 60 * 1000;

export function requestFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/** The payload of a token WITHOUT checking it: only for starting reads early; decode() before use. */
export function peekPayload(token: unknown): TokenPayload | undefined {
  if (typeof token !== 'string' || token.length > 4096) return undefined;
  try {
    return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as TokenPayload;
  } catch {
    return undefined;
  }
}

export class TokenCodec {
  private readonly key: Buffer;

  constructor(secretHex: string, private readonly now: () => number = Date.now) {
    this.key = Buffer.from(secretHex, 'hex');
    if (this.key.length < 16) throw new Error('the resumption-token secret is too short');
  }

  // node:crypto's HMAC, not a JWS (jose): a header segment would lengthen every token in a URL and retire the ones issued.
  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }

  encode(payload: Omit<TokenPayload, 't'>): string {
    const body = Buffer.from(JSON.stringify({ ...payload, t: this.now(), v: KEY_LAYOUT })).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /**
   * The payload of a token this node issued and that has not expired, before the request's own
   * checks (service, fingerprint): for starting reads early. A forged token drives no read.
   */
  authentic(token: unknown): TokenPayload | undefined {
    const check = this.decode(token, undefined, undefined);
    return check.ok ? check.payload : undefined;
  }

  /** Checks the MAC, the issuing service, the request fingerprint and the lifetime. */
  decode(token: unknown, service: string | undefined, fingerprint: string | undefined): TokenCheck {
    if (typeof token !== 'string' || token.length > 4096) return { ok: false, reason: 'the resumption token is not one this node issued' };
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return { ok: false, reason: 'the resumption token is not one this node issued' };
    const expected = this.mac(body);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'the resumption token is not one this node issued (or was modified)' };
    let payload: TokenPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenPayload;
    } catch {
      return { ok: false, reason: 'the resumption token is damaged' };
    }
    if (service !== undefined && payload.s !== service) return { ok: false, reason: 'the resumption token belongs to another request' };
    if (fingerprint !== undefined && payload.q !== fingerprint) return { ok: false, reason: 'the resumption token was issued for other request arguments' };
    if (typeof payload.t !== 'number' || this.now() - payload.t > TOKEN_LIFETIME_MS) return { ok: false, reason: 'the resumption token has expired' };
    if (payload.v !== KEY_LAYOUT && !LAYOUT_FREE_SERVICES.has(payload.s)) return { ok: false, reason: 'the resumption token was issued before this node was upgraded (its indexes changed): start the list again' };
    return { ok: true, payload };
  }
}
