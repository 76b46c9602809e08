/**
 * LR-PGP.1.0 verification (the block's format: lr-pgp.ts): the block's shape, the signed hash
 * against the envelope's canonical hash under each historical number mode, then the PGP signature.
 *
 * Verification is pure: the caller fetches the public keys (from `key_location` through the
 * safe fetcher, or from a local key store) and passes them in armored form.
 *
 * Fingerprints are returned as lowercase hex (openpgp's own format), 40 characters for v4 keys;
 * it is the fingerprint of the primary key (the certificate), even when a signing subkey made the
 * signature; `keyId` is the 16-hex-digit id of the key or subkey that actually signed.
 */
import * as openpgp from 'openpgp';
import {
  canonicalHash,
  containsNumbers,
  NUMBER_MODE_NULL,
  NUMBER_MODES,
  type NumberMode,
} from './canonical-hash.js';
import { errorMessage, LR_PGP_SIGNING_METHOD, type DigitalSignature } from './lr-pgp.js';
import { verifyClearSigned } from './clear-verifier.js';
import { fullConfig } from './openpgp-packets.js';
import { isRecord } from '../is-record.js';

export type VerifyFailureCode =
  | 'not-an-envelope'
  | 'missing-signature'
  | 'bad-signature-format'
  | 'unsupported-signing-method'
  | 'no-usable-key'
  | 'empty-signed-text'
  | 'hash-mismatch'
  | 'signature-invalid';

export type VerifyResult =
  | {
      ok: true;
      /** Primary key fingerprint, lowercase hex. */
      fingerprint: string;
      /** Key id (lowercase hex) of the key or subkey that made the signature. */
      keyId: string;
      /** The number mode whose canonical hash matched the signed text. */
      numberMode: NumberMode;
    }
  | { ok: false; reason: string; code: VerifyFailureCode };

export interface VerifyOptions {
  /**
   * Accept clear-signed messages hashed with SHA-1 (default true). Practically every historical
   * LR signature is `Hash: SHA1` (GnuPG 1.4 default) and openpgp.js rejects those by default. A
   * SHA-1 collision would require the signer to sign attacker-chosen bytes, whereas the signed
   * text here is always a 64-character SHA-256 hex digest, so accepting SHA-1 is a reasonable
   * compatibility choice; set false to refuse.
   */
  allowSha1?: boolean;
  /** Verify key and signature validity at this date instead of now. */
  date?: Date;
}

/**
 * The two configurations verification runs with, built once (not per document): openpgp's
 * defaults, and the same with SHA-1 message hashes allowed (VerifyOptions.allowSha1). The node
 * never changes openpgp's global configuration, so building them at load reads what each call
 * would have merged.
 */
const SHA1_ALLOWED = { name: 'sha1', config: fullConfig({ rejectMessageHashAlgorithms: new Set([openpgp.enums.hash.md5, openpgp.enums.hash.ripemd]) }) };
const OPENPGP_DEFAULTS = { name: 'no-sha1', config: fullConfig() };

function fail(code: VerifyFailureCode, reason: string): VerifyResult {
  return { ok: false, code, reason };
}

/** Check the shape of `doc.digital_signature` like LRSignature's `_getSignatureInfo`. */
function readSignatureBlock(doc: unknown): { block: DigitalSignature } | { error: VerifyResult } {
  if (!isRecord(doc)) return { error: fail('not-an-envelope', 'document is not a JSON object') };
  const sig = doc.digital_signature;
  if (sig === undefined || sig === null) {
    return { error: fail('missing-signature', 'document has no digital_signature') };
  }
  if (!isRecord(sig)) return { error: fail('bad-signature-format', 'digital_signature is not an object') };
  if (sig.signing_method !== LR_PGP_SIGNING_METHOD) {
    return {
      error: fail(
        'unsupported-signing-method',
        `unsupported signing_method ${JSON.stringify(sig.signing_method ?? null)} (expected ${LR_PGP_SIGNING_METHOD})`,
      ),
    };
  }
  if (typeof sig.signature !== 'string' || sig.signature.length === 0) {
    return { error: fail('bad-signature-format', 'digital_signature.signature is missing or empty') };
  }
  const locations = sig.key_location;
  if (!Array.isArray(locations) || locations.length === 0 || !locations.every((l) => typeof l === 'string')) {
    return {
      error: fail('bad-signature-format', 'digital_signature.key_location must be a non-empty array of strings'),
    };
  }
  if (sig.key_owner !== undefined && typeof sig.key_owner !== 'string') {
    return { error: fail('bad-signature-format', 'digital_signature.key_owner must be a string') };
  }
  const block: DigitalSignature = {
    signature: sig.signature,
    key_location: locations as string[],
    signing_method: sig.signing_method,
  };
  if (typeof sig.key_owner === 'string') block.key_owner = sig.key_owner;
  return { block };
}

/** The readable keys among armored key blocks (private keys as their public part). */
export async function readPublicKeys(armored: readonly string[]): Promise<openpgp.PublicKey[]> {
  const keys: openpgp.PublicKey[] = [];
  for (const text of armored) {
    try {
      const read = await openpgp.readKeys({ armoredKeys: text });
      for (const key of read) keys.push(key.isPrivate() ? key.toPublic() : key);
    } catch {
      // An unreadable key is skipped: another one may still verify the signature.
    }
  }
  return keys;
}

/** Which number mode, if any, gives a canonical hash equal to `signedText`. */
function matchingMode(doc: unknown, signedText: string): NumberMode | null {
  const modes = containsNumbers(doc) ? NUMBER_MODES : [NUMBER_MODE_NULL];
  for (const mode of modes) {
    if (canonicalHash(doc, mode) === signedText) return mode;
  }
  return null;
}

/**
 * Verify the LR-PGP.1.0 signature of an envelope against the given armored public keys:
 * the signing method, the shape of the block, the PGP signature over the clear-signed text, and
 * that the signed text equals the envelope's canonical hash under one of the historical number
 * modes. Never throws for bad input; the reason says what failed.
 */
export async function verifyEnvelopeSignature(
  doc: unknown,
  publicKeysArmored: readonly string[],
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  return verifyEnvelopeSignatureWith(doc, () => readPublicKeys(publicKeysArmored), options);
}

/**
 * {@link verifyEnvelopeSignature} with keys already read (a verifier that keeps parsed keys, e.g.
 * the signature workers, parses each distinct key once). `keys` is only called once the
 * signature block and the canonical hash have been checked.
 */
export async function verifyEnvelopeSignatureWith(
  doc: unknown,
  readKeys: () => Promise<openpgp.PublicKey[]>,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const read = readSignatureBlock(doc);
  if ('error' in read) return read.error;
  const { block } = read;

  let message: openpgp.CleartextMessage;
  try {
    message = await openpgp.readCleartextMessage({ cleartextMessage: block.signature });
  } catch (err) {
    return fail('bad-signature-format', `signature is not a PGP clear-signed message: ${errorMessage(err)}`);
  }

  // The hash check needs no key: do it first (cheap, and tells tampering apart from key trouble).
  const signedText = message.getText().trim();
  if (signedText.length === 0) {
    return fail('empty-signed-text', 'the clear-signed text is empty (the signature covers nothing)');
  }
  let mode: NumberMode | null;
  try {
    mode = matchingMode(doc, signedText);
  } catch (err) {
    return fail('not-an-envelope', `cannot compute canonical hash: ${errorMessage(err)}`);
  }
  if (mode === null) {
    return fail('hash-mismatch', 'the signed hash does not match the canonical hash of the document');
  }

  const keys = await readKeys();
  if (keys.length === 0) return fail('no-usable-key', 'no readable public key was supplied');

  // As openpgp.verify checks a clear-signed message, its key checks remembered (clear-verifier.ts).
  const { config, name } = options.allowSha1 !== false ? SHA1_ALLOWED : OPENPGP_DEFAULTS;
  const verification = await verifyClearSigned(message, keys, options.date ?? new Date(), config, name);
  const { signer, keyId, errors } = verification;
  if (signer !== undefined && keyId !== undefined) {
    return { ok: true, fingerprint: signer.getFingerprint().toLowerCase(), keyId, numberMode: mode };
  }
  const detail = errors.length > 0 ? errors.join('; ') : 'no signature in the message';
  return fail('signature-invalid', `no valid signature by the given keys: ${detail}`);
}
