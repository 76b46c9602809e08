/**
 * Clear-signing with an Ed25519 (EdDSA legacy, RFC 4880bis / RFC 9580 §5.2.3) key through
 * node:crypto: the OpenPGP v4 signature packet openpgp.js makes for the node's key, with the same
 * hashed subpackets (creation time, issuer key id, openpgp.js's random salt notation, issuer
 * fingerprint) and armor, built here. openpgp.js spends over 1 ms per signature importing the key
 * into WebCrypto and re-validating it; node:crypto signs in about 0.05 ms (bench/signatures.ts).
 * `ed25519ClearSigner` checks its first signature with openpgp.js and offers no signer when the
 * key is of another kind or the check fails: the caller then signs with openpgp.js as before.
 */
import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import * as openpgp from 'openpgp';

const EDDSA_LEGACY = 22;
const SALT_NOTATION = Buffer.from('salt@notations.openpgpjs.org', 'utf8');
/** OpenPGP hash algorithm ids (RFC 9580 §9.5) and node:crypto names of those the node may use. */
const HASHES: Record<number, { name: string; armor: string }> = { 8: { name: 'sha256', armor: 'SHA256' }, 10: { name: 'sha512', armor: 'SHA512' }, 9: { name: 'sha384', armor: 'SHA384' } };

export type ClearSigner = (text: string, date?: Date) => string;

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

function subpacket(type: number, body: Buffer): Buffer {
  // Every subpacket here is shorter than 192 octets: a one-octet length (RFC 9580 §5.2.3.7).
  return Buffer.concat([Buffer.from([body.length + 1, type]), body]);
}

/** Multiprecision integer: bit count, then the value without leading zero octets (RFC 9580 §3.2). */
function mpi(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const value = bytes.subarray(start);
  const bits = (value.length - 1) * 8 + (32 - Math.clz32(value[0] ?? 0));
  return Buffer.concat([Buffer.from([bits >> 8, bits & 0xff]), value]);
}

/** New-format packet header (RFC 9580 §4.2.1). */
function packet(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const length = n < 192 ? [n] : n < 8384 ? [((n - 192) >> 8) + 192, (n - 192) & 0xff] : [0xff, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([0xc0 | tag, ...length]), body]);
}

/** The armor checksum (RFC 4880 §6.1), which openpgp.js writes too. */
function crc24(bytes: Buffer): Buffer {
  let crc = 0xb704ce;
  for (const byte of bytes) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i += 1) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return Buffer.from([(crc >> 16) & 0xff, (crc >> 8) & 0xff, crc & 0xff]);
}

function clearSign(text: string, secret: KeyObject, hash: number, keyId: Buffer, fingerprint: Buffer, date: Date): string {
  const { name, armor } = HASHES[hash] as { name: string; armor: string };
  const created = Buffer.alloc(4);
  created.writeUInt32BE(Math.floor(date.getTime() / 1000));
  const notationHeader = Buffer.alloc(8);
  notationHeader.writeUInt16BE(SALT_NOTATION.length, 4);
  notationHeader.writeUInt16BE(32, 6);
  const hashed = Buffer.concat([
    subpacket(0x82, created), // signature creation time, critical
    subpacket(16, keyId), // issuer key id
    subpacket(20, Buffer.concat([notationHeader, SALT_NOTATION, randomBytes(32)])), // salt notation
    subpacket(33, Buffer.concat([Buffer.from([4]), fingerprint])), // issuer fingerprint
  ]);
  const head = Buffer.concat([Buffer.from([4, 0x01, EDDSA_LEGACY, hash, hashed.length >> 8, hashed.length & 0xff]), hashed]);
  const trailer = Buffer.from([4, 0xff, 0, 0, 0, 0]);
  trailer.writeUInt32BE(head.length, 2);
  // A canonical-text signature of the cleartext: line ends as CRLF, trailing blanks dropped (RFC 9580 §7.1).
  const data = Buffer.from(text.split(/\r?\n/).map((line) => line.replace(/[ \t]+$/, '')).join('\r\n'), 'utf8');
  const digest = createHash(name).update(data).update(head).update(trailer).digest();
  const signature = sign(null, digest, secret);
  const body = Buffer.concat([head, Buffer.from([0, 0]), digest.subarray(0, 2), mpi(signature.subarray(0, 32)), mpi(signature.subarray(32))]);
  const bytes = packet(2, body);
  const lines = bytes.toString('base64').match(/.{1,60}/g) ?? [];
  return `-----BEGIN PGP SIGNED MESSAGE-----\nHash: ${armor}\n\n${text.replace(/^-/gm, '- -')}\n-----BEGIN PGP SIGNATURE-----\n\n${lines.join('\n')}\n=${crc24(bytes).toString('base64')}\n-----END PGP SIGNATURE-----\n`;
}

/** A node:crypto clear-signer for this decrypted key when it signs with Ed25519 (EdDSA legacy), checked once; else undefined. */
export async function ed25519ClearSigner(key: openpgp.PrivateKey): Promise<ClearSigner | undefined> {
  try {
    const signing = await key.getSigningKey();
    const packetOf = signing.keyPacket as unknown as { algorithm: number; version: number; privateParams?: { seed?: Uint8Array }; publicParams?: { Q?: Uint8Array } };
    const seed = packetOf.privateParams?.seed;
    const point = packetOf.publicParams?.Q;
    if (packetOf.algorithm !== EDDSA_LEGACY || packetOf.version !== 4 || !seed || seed.length !== 32 || point?.length !== 33 || point[0] !== 0x40) return undefined;
    const secret = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64url(seed), x: b64url(point.subarray(1)) }, format: 'jwk' });
    // The hash openpgp.js would choose for this key, read from a signature it makes.
    const probe = await openpgp.readCleartextMessage({ cleartextMessage: await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: 'probe' }), signingKeys: key }) });
    const hash = (probe as unknown as { signature: { packets: { hashAlgorithm: number }[] } }).signature.packets[0]?.hashAlgorithm ?? 0;
    if (!HASHES[hash]) return undefined;
    const keyId = Buffer.from(signing.getKeyID().toHex(), 'hex');
    const fingerprint = Buffer.from(signing.getFingerprint(), 'hex');
    const signer: ClearSigner = (text, date = new Date()) => clearSign(text, secret, hash, keyId, fingerprint, date);
    // The first signature must verify with openpgp.js, or this signer is not used.
    const text = createHash('sha256').update('self-check').digest('hex');
    const check = await openpgp.verify({ message: await openpgp.readCleartextMessage({ cleartextMessage: signer(text) }), verificationKeys: key.toPublic(), expectSigned: true });
    return check.data === text ? signer : undefined;
  } catch {
    return undefined;
  }
}
