/**
 * OpenPGP key-pair generation for node keys (domain/node-keys.ts), CLI signing keys, tests and
 * benchmarks.
 */
import * as openpgp from 'openpgp';
import { SignatureError } from './lr-pgp.js';

export interface NodeKeyPair {
  publicKeyArmored: string;
  privateKeyArmored: string;
  /** Primary key fingerprint, lowercase hex. */
  fingerprint: string;
}

/**
 * `'ed25519'`: v4 EdDSA (legacy Ed25519) + ECDH cv25519, readable by GnuPG >= 2.1 and openpgp.js,
 * the node's key type; `'rsa'`: RSA (default 3072 bits) for old GnuPG 1.4 peers, slow to
 * generate and to sign with (figures: bench/signatures.ts). `'ecc'` is the old name of `'ed25519'`.
 */
export type NodeKeyType = 'ed25519' | 'ecc' | 'rsa';

export interface GenerateNodeKeyPairOptions {
  /** Encrypt the private key with this passphrase (default: unencrypted). */
  passphrase?: string;
  /** Default `'ed25519'`. */
  type?: NodeKeyType;
  rsaBits?: number;
  /** The user id's comment, e.g. `node <node_id>` for a node key. */
  comment?: string;
}

/**
 * The one key-pair generator (node keys, CLI signing keys, tests and benchmarks): armored keys
 * with one user id `name (comment) <email>` (empty parts left out).
 */
export async function generateNodeKeyPair(
  name: string,
  email: string,
  options: GenerateNodeKeyPairOptions = {},
): Promise<NodeKeyPair> {
  if (name.trim().length === 0 && email.trim().length === 0) {
    throw new SignatureError('a key needs a name or an email');
  }
  const common = {
    userIDs: [{ name, email, ...(options.comment ? { comment: options.comment } : {}) }],
    ...(options.passphrase !== undefined ? { passphrase: options.passphrase } : {}),
    format: 'armored' as const,
  };
  const generated =
    options.type === 'rsa'
      ? await openpgp.generateKey({ ...common, type: 'rsa', rsaBits: options.rsaBits ?? 3072 })
      : await openpgp.generateKey({ ...common, type: 'ecc', curve: 'curve25519Legacy' });
  const publicKey = await openpgp.readKey({ armoredKey: generated.publicKey });
  return {
    publicKeyArmored: generated.publicKey,
    privateKeyArmored: generated.privateKey,
    fingerprint: publicKey.getFingerprint().toLowerCase(),
  };
}
