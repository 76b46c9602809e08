/**
 * LR-PGP.1.0 proxy signing by the node (the block's format: lr-pgp.ts): the envelope's canonical
 * hash clear-signed with a private key, read and decrypted once for many envelopes.
 */
import * as openpgp from 'openpgp';
import { canonicalHash, NUMBER_MODE_NULL, type NumberMode } from './canonical-hash.js';
import { ClearSigner } from './clear-signer.js';
import { errorMessage, LR_PGP_SIGNING_METHOD, SignatureError, type DigitalSignature } from './lr-pgp.js';
import { isRecord } from '../is-record.js';

export interface SignEnvelopeOptions {
  /** Number mode used for the hash; default `'null'` (what current LRSignature verifiers compute). */
  numberMode?: NumberMode;
  /** `key_owner` to record; default: the key's primary user id. */
  keyOwner?: string;
  /** Signature creation time (default now). */
  date?: Date;
}

/**
 * Sign an envelope with the node's key (proxy signing) and return a copy carrying a fresh
 * `digital_signature`; an existing signature is replaced, `doc` itself is not modified.
 *
 * Note on numbers: with the default `'null'` mode numeric values are not covered by the
 * signature (they hash as "null"/are dropped), exactly as with current LRSignature.
 */
export async function signEnvelope<T extends Record<string, unknown>>(
  doc: T,
  privateKeyArmored: string,
  passphrase: string | undefined,
  keyLocations: readonly string[],
  options: SignEnvelopeOptions = {},
): Promise<Omit<T, 'digital_signature'> & { digital_signature: DigitalSignature }> {
  if (!isRecord(doc)) throw new SignatureError('document is not a JSON object');
  checkKeyLocations(keyLocations);
  return signEnvelopeWith(doc, await readSigningKey(privateKeyArmored, passphrase), keyLocations, options);
}

/** A private key read and decrypted once, for signing many envelopes. */
export interface SigningKey {
  key: openpgp.PrivateKey;
  /** The key's primary user id: the default `key_owner`. */
  owner: string | undefined;
  /** Signs with `key`, its checks done once a second (clear-signer.ts). */
  signer: ClearSigner;
}

function checkKeyLocations(keyLocations: readonly string[]): void {
  if (keyLocations.length === 0 || !keyLocations.every((l) => typeof l === 'string' && l.length > 0)) {
    throw new SignatureError('keyLocations must be a non-empty array of URLs');
  }
}

/** Reads (and, with the passphrase, decrypts) an armored private key for {@link signEnvelopeWith}. */
export async function readSigningKey(privateKeyArmored: string, passphrase: string | undefined): Promise<SigningKey> {
  let privateKey: openpgp.PrivateKey;
  try {
    privateKey = await openpgp.readPrivateKey({ armoredKey: privateKeyArmored });
  } catch (err) {
    throw new SignatureError(`cannot read private key: ${errorMessage(err)}`);
  }
  if (!privateKey.isDecrypted()) {
    if (passphrase === undefined) throw new SignatureError('private key is encrypted and no passphrase was given');
    try {
      privateKey = await openpgp.decryptKey({ privateKey, passphrase });
    } catch (err) {
      throw new SignatureError(`cannot decrypt private key: ${errorMessage(err)}`);
    }
  }
  return { key: privateKey, owner: await primaryUserId(privateKey), signer: new ClearSigner(privateKey) };
}

/** {@link signEnvelope} with a key read once by {@link readSigningKey}. */
export async function signEnvelopeWith<T extends Record<string, unknown>>(
  doc: T,
  signingKey: SigningKey,
  keyLocations: readonly string[],
  options: SignEnvelopeOptions = {},
): Promise<Omit<T, 'digital_signature'> & { digital_signature: DigitalSignature }> {
  if (!isRecord(doc)) throw new SignatureError('document is not a JSON object');
  checkKeyLocations(keyLocations);
  const rest: Record<string, unknown> = { ...doc };
  delete rest.digital_signature;
  const hash = canonicalHash(rest, options.numberMode ?? NUMBER_MODE_NULL);
  const signature = await signingKey.signer.sign(hash, options.date);

  const block: DigitalSignature = {
    signature,
    key_location: [...keyLocations],
    signing_method: LR_PGP_SIGNING_METHOD,
  };
  const owner = options.keyOwner ?? signingKey.owner;
  if (owner) block.key_owner = owner;
  return { ...(rest as Omit<T, 'digital_signature'>), digital_signature: block };
}

async function primaryUserId(key: openpgp.Key): Promise<string | undefined> {
  try {
    const primary = await key.getPrimaryUser();
    return primary.user.userID?.userID || undefined;
  } catch {
    return key.getUserIDs()[0];
  }
}
