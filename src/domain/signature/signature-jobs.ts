/**
 * The signature work a worker thread does (signature-worker.ts), as plain functions over plain
 * data: proxy signing with a key read and decrypted once, and verification with each distinct
 * public key parsed once. The caches are this thread's own (pure caches: the same key text always
 * parses to the same key), so any worker can take any job.
 */
import type * as openpgp from 'openpgp';
import type { DigitalSignature } from './lr-pgp.js';
import { readSigningKey, signEnvelopeWith, type SigningKey } from './lr-pgp-sign.js';
import { readPublicKeys, verifyEnvelopeSignatureWith, type VerifyOptions, type VerifyResult } from './lr-pgp-verify.js';

export interface SignJob { op: 'sign'; doc: Record<string, unknown>; privateKey: string; passphrase?: string; keyLocations: string[] }
export interface VerifyJob { op: 'verify'; doc: unknown; publicKeys: string[]; options?: VerifyOptions }
export type SignatureJob = SignJob | VerifyJob;

/** The signature block made for the document, and which key made it (the node's, for its own records). */
export interface SignOutcome { digital_signature: DigitalSignature; keyId: string; fingerprint: string }

/** Distinct keys kept per thread; a node sees few signers, so this bound is only a guard. */
const MAX_KEYS = 1000;

interface ReadSigningKey extends SigningKey { keyId: string; fingerprint: string }

export class SignatureJobs {
  private readonly signingKeys = new Map<string, Promise<ReadSigningKey>>();
  private readonly publicKeys = new Map<string, Promise<openpgp.PublicKey[]>>();

  async run(job: SignatureJob): Promise<SignOutcome | VerifyResult> {
    return job.op === 'sign' ? this.sign(job) : this.verify(job);
  }

  async sign(job: SignJob): Promise<SignOutcome> {
    const key = await this.signingKey(job.privateKey, job.passphrase);
    const signed = await signEnvelopeWith(job.doc, key, job.keyLocations);
    return { digital_signature: signed.digital_signature, keyId: key.keyId, fingerprint: key.fingerprint };
  }

  verify(job: VerifyJob): Promise<VerifyResult> {
    return verifyEnvelopeSignatureWith(job.doc, async () => (await Promise.all(job.publicKeys.map((text) => this.publicKey(text)))).flat(), job.options);
  }

  private signingKey(armored: string, passphrase: string | undefined): Promise<ReadSigningKey> {
    const id = `${passphrase ?? ''}\0${armored}`;
    let key = this.signingKeys.get(id);
    if (!key) {
      key = readSigningKey(armored, passphrase).then(async (read) => ({
        ...read, keyId: (await read.key.getSigningKey()).getKeyID().toHex(), fingerprint: read.key.getFingerprint().toLowerCase(),
      }));
      key.catch(() => this.signingKeys.delete(id)); // a key that cannot be read is not remembered
      remember(this.signingKeys, id, key);
    }
    return key;
  }

  /** The keys in one armored text, read once (an unreadable text reads as no keys, as in readPublicKeys). */
  private publicKey(armored: string): Promise<openpgp.PublicKey[]> {
    let keys = this.publicKeys.get(armored);
    if (!keys) {
      keys = readPublicKeys([armored]);
      remember(this.publicKeys, armored, keys);
    }
    return keys;
  }
}

function remember<T>(cache: Map<string, T>, id: string, value: T): void {
  if (cache.size >= MAX_KEYS) cache.clear();
  cache.set(id, value);
}
