/**
 * What lr-node publish does to each document before sending: a doc_ID derived from the file's
 * content and the document's position when it has none (so a request resent after an
 * interruption updates the same documents instead of storing them twice: spec "Publish",
 * same-doc_ID update), then an optional LR-PGP.1.0 signature with the publisher's key.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readSigningKey as readPrivateKey, signEnvelopeWith, type SigningKey as ReadKey } from '../domain/signature/lr-pgp-sign.js';
import { usageError } from './errors.js';

export interface SigningKey {
  armored: string;
  passphrase: string | undefined;
  keyLocations: string[];
  /**
   * The key read and decrypted at the first document, for every document: decrypting is the
   * passphrase's KDF, made slow on purpose, and a file of thousands of documents paid it for each.
   */
  read?: Promise<ReadKey>;
}

export function readSigningKey(file: string, keyLocations: string[], passphrase: string | undefined): SigningKey {
  if (keyLocations.length === 0) throw usageError('--sign-key needs at least one --key-location URL where verifiers fetch the public key');
  for (const location of keyLocations) {
    if (!/^https?:\/\//.test(location)) throw usageError(`--key-location must be an http(s) URL: ${location}`);
  }
  try {
    return { armored: fs.readFileSync(file, 'utf8'), passphrase, keyLocations };
  } catch (error) {
    throw usageError(`cannot read the key ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

export function derivedDocId(fileSha256: string, index: number): string {
  return createHash('sha256').update(`lr-node publish\0${fileSha256}\0${index}`).digest('hex').slice(0, 32);
}

export async function prepareDocument(doc: unknown, fileSha256: string, index: number, key: SigningKey | undefined): Promise<unknown> {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return doc; // the node reports it
  const withId: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  if (typeof withId.doc_ID !== 'string' || withId.doc_ID === '') withId.doc_ID = derivedDocId(fileSha256, index);
  if (!key) return withId;
  key.read ??= readPrivateKey(key.armored, key.passphrase);
  return signEnvelopeWith(withId, await key.read, key.keyLocations);
}
