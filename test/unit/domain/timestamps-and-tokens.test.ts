/** Node timestamps (src/domain/timestamps.ts) and resumption tokens (src/domain/resumption-token.ts), without a node. */
import { expect } from 'chai';
import { compareTimestamps, dayDatestamp, nodeTimestamp, secondsDatestamp, timestampAfter } from '../../../src/domain/timestamps.js';
import { createHmac } from 'node:crypto';
import { KEY_LAYOUT, TOKEN_LIFETIME_MS, TokenCodec, peekPayload, requestFingerprint } from '../../../src/domain/resumption-token.js';
import { passwordWeakness } from '../../../src/domain/password-strength.js';

describe('node timestamps', () => {
  it('are UTC with six fractional digits, one fixed width so view keys sort in time order', () => {
    expect(nodeTimestamp(new Date('2011-11-02T09:24:54.449Z'))).to.equal('2011-11-02T09:24:54.449000Z');
    expect(nodeTimestamp(new Date('2011-11-02T09:24:54Z'))).to.equal('2011-11-02T09:24:54.000000Z');
    const times = ['2024-01-01T00:00:00.001Z', '2024-01-01T00:00:00.010Z', '2024-01-01T00:00:00.100Z', '2024-01-01T00:00:01.000Z'].map((t) => nodeTimestamp(new Date(t)));
    expect([...times].sort()).to.deep.equal(times);
  });

  it('harvest datestamps: seconds (no fraction) and days', () => {
    expect(secondsDatestamp('2011-11-02T09:24:54.449163Z')).to.equal('2011-11-02T09:24:54Z');
    expect(dayDatestamp('2011-11-02T09:24:54.449163Z')).to.equal('2011-11-02');
  });
});

describe('resumption tokens', () => {
  const SECRET = '00112233445566778899aabbccddeeff';
  let now = 1_700_000_000_000;
  const codec = new TokenCodec(SECRET, () => now);
  const q = requestFingerprint({ from: '2024-01-01' });
  const token = codec.encode({ s: 'obtain:all', q, k: ['2024-01-02', 'doc-9'], n: 10 });

  it('round-trip the keyset cursor for the same service and arguments', () => {
    const check = codec.decode(token, 'obtain:all', q);
    expect(check.ok).to.equal(true);
    if (check.ok) expect(check.payload).to.include({ s: 'obtain:all', q, n: 10, t: now }).and.have.deep.property('k', ['2024-01-02', 'doc-9']);
    expect(peekPayload(token)).to.deep.include({ k: ['2024-01-02', 'doc-9'] });
  });

  it('refuse another service, other arguments, another secret and a modified token, each with its reason', () => {
    expect(codec.decode(token, 'slice', q)).to.deep.equal({ ok: false, reason: 'the resumption token belongs to another request' });
    expect(codec.decode(token, 'obtain:all', requestFingerprint({ from: '2024-01-02' }))).to.deep.equal({ ok: false, reason: 'the resumption token was issued for other request arguments' });
    expect(new TokenCodec('ff'.repeat(16)).decode(token, 'obtain:all', q)).to.deep.include({ ok: false });
    const [body, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...peekPayload(token), n: 0 })).toString('base64url');
    expect(codec.decode(`${forged}.${mac}`, 'obtain:all', q)).to.deep.equal({ ok: false, reason: 'the resumption token is not one this node issued (or was modified)' });
    for (const bad of [undefined, 42, '', body, `${token}.x`, 'x'.repeat(5000)]) expect(codec.decode(bad, 'obtain:all', q).ok, String(bad).slice(0, 20)).to.equal(false);
    // A MAC of another length (cut short, or longer) is refused like a wrong one, never thrown on (timingSafeEqual throws on unequal lengths).
    for (const wrongLength of [mac.slice(0, 10), `${mac}AAAA`, 'AA']) {
      expect(codec.decode(`${body}.${wrongLength}`, 'obtain:all', q)).to.deep.equal({ ok: false, reason: 'the resumption token is not one this node issued (or was modified)' });
    }
  });

  it('expire after 48 hours', () => {
    const issued = now;
    now = issued + TOKEN_LIFETIME_MS;
    expect(codec.decode(token, 'obtain:all', q).ok).to.equal(true);
    now = issued + TOKEN_LIFETIME_MS + 1;
    expect(codec.decode(token, 'obtain:all', q)).to.deep.equal({ ok: false, reason: 'the resumption token has expired' });
    now = issued;
  });

  it('refuse a token of an earlier view key layout (issued before an upgrade changed the indexes), saying to start again', () => {
    const signed = (payload: Record<string, unknown>): string => {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${createHmac('sha256', Buffer.from(SECRET, 'hex')).update(body).digest('base64url')}`;
    };
    const refusal = { ok: false, reason: 'the resumption token was issued before this node was upgraded (its indexes changed): start the list again' };
    // Layout 1 (no `v`: doc_IDs as text) and layout 2 (4 hex digits a code unit).
    expect(codec.decode(signed({ s: 'obtain:all', q, k: ['2024-01-02', 'doc-9'], n: 10, t: now }), 'obtain:all', q)).to.deep.equal(refusal);
    expect(codec.decode(signed({ s: 'obtain:all', q, k: ['2024-01-02', '0064006f0063002d0039'], n: 10, t: now, v: 2 }), 'obtain:all', q)).to.deep.equal(refusal);
    expect(KEY_LAYOUT).to.equal(3);
    expect(peekPayload(token)).to.deep.include({ v: KEY_LAYOUT });
  });

  it('accept a slice token of an earlier layout: its cursor is a timestamp and a doc_ID, no view key', () => {
    const body = Buffer.from(JSON.stringify({ s: 'slice', q, k: ['2024-01-02T00:00:00.000000Z', 'doc-9'], n: 10, t: now })).toString('base64url');
    const earlier = `${body}.${createHmac('sha256', Buffer.from(SECRET, 'hex')).update(body).digest('base64url')}`;
    expect(codec.decode(earlier, 'slice', q)).to.deep.include({ ok: true });
  });

  it('need a secret of at least 16 bytes', () => {
    expect(() => new TokenCodec('00ff')).to.throw(/too short/);
  });
});

describe('publishing password strength', () => {
  it('refuses short, repetitive and name-bearing passwords, with the reason', () => {
    expect(passwordWeakness('short', 'alice')).to.match(/at least 10 characters/);
    expect(passwordWeakness('abababababab', 'alice')).to.match(/at least 4 different characters/);
    expect(passwordWeakness('my-ALICE-password', 'alice')).to.match(/must not contain the account name/);
    expect(passwordWeakness('correct horse battery', 'alice')).to.equal(undefined);
    // Long enough and varied, yet guessed at once (an operator audit): common passwords, keyboard rows, sequences.
    for (const common of ['password123', '1234567890', 'qwertyuiop', 'abcdefghij1', 'iloveyou12']) {
      expect(passwordWeakness(common, 'alice'), common).to.match(/too easy to guess/);
    }
    expect(passwordWeakness('Sx7$pa@ss:w%rd', 'alice')).to.equal(undefined);
  });
});

describe('compareTimestamps: order in time, whatever the fractional digits', () => {
  it('orders to the microsecond and treats equal instants as equal', () => {
    const sign = (a: unknown, b: unknown): number | undefined => { const order = compareTimestamps(a, b); return order === undefined ? undefined : Math.sign(order); };
    expect(sign('2024-01-01T00:00:19Z', '2024-01-01T00:00:19.5Z')).to.equal(-1); // string order says the opposite
    expect(sign('2024-01-01T00:00:19.500000Z', '2024-01-01T00:00:19.5Z')).to.equal(0);
    expect(sign('2024-01-01T00:00:19.000002Z', '2024-01-01T00:00:19.000001Z')).to.equal(1);
    expect(sign('2024-01-02T00:00:00Z', '2024-01-01T23:59:59.999999Z')).to.equal(1);
  });
  it('says nothing of what is not an ISO 8601 UTC timestamp', () => {
    for (const other of [undefined, 12, '2024-01-01', '2024-01-01T00:00:00+01:00', 'yesterday']) {
      expect(compareTimestamps(other, '2024-01-01T00:00:00Z'), String(other)).to.equal(undefined);
    }
  });
});

describe('timestampAfter: a new version stamped after the one it replaces', () => {
  it('is now when now is later, or when there is nothing comparable before', () => {
    expect(timestampAfter('2026-01-01T00:00:01.000000Z', '2026-01-01T00:00:00.999999Z')).to.equal('2026-01-01T00:00:01.000000Z');
    expect(timestampAfter('2026-01-01T00:00:01.000000Z', undefined)).to.equal('2026-01-01T00:00:01.000000Z');
    expect(timestampAfter('2026-01-01T00:00:01.000000Z', 'yesterday')).to.equal('2026-01-01T00:00:01.000000Z');
  });

  it('is one microsecond after the previous one when now is not later (a racing write, a clock behind)', () => {
    expect(timestampAfter('2026-01-01T00:00:01.000000Z', '2026-01-01T00:00:01.000000Z')).to.equal('2026-01-01T00:00:01.000001Z');
    expect(timestampAfter('2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:01.5Z')).to.equal('2026-01-01T00:00:01.500001Z');
    expect(timestampAfter('2026-01-01T00:00:00.000000Z', '2026-12-31T23:59:59.999999Z')).to.equal('2027-01-01T00:00:00.000000Z');
    expect(compareTimestamps(timestampAfter('2025-01-01T00:00:00.000000Z', '2026-01-01T00:00:00Z'), '2026-01-01T00:00:00Z')).to.be.above(0);
  });
});
