/**
 * LR-PGP.1.0 envelope signatures: the `digital_signature` block and what verification
 * (lr-pgp-verify.ts), proxy signing by the node (lr-pgp-sign.ts) and node key generation
 * (node-key-pair.ts) share.
 *
 * An LR-PGP.1.0 `digital_signature` block is
 *
 *     { "signature": "<PGP clear-signed message whose text is the canonical hash>",
 *       "key_location": ["<url>", ...],          // where the public key can be fetched
 *       "signing_method": "LR-PGP.1.0",
 *       "key_owner": "Name <email>" }            // optional
 *
 * and the signed text is {@link canonicalHash} of the envelope (see canonical-hash.ts).
 */
export const LR_PGP_SIGNING_METHOD = 'LR-PGP.1.0';

/** The `digital_signature` block of an envelope. */
export interface DigitalSignature {
  signature: string;
  key_location: string[];
  signing_method: string;
  key_owner?: string;
}

/** Thrown by {@link signEnvelope} and {@link generateNodeKeyPair} for unusable input. */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The signed text of a clear-signed block, extracted the way LRSignature's Verify does it (text
 * between the armor header block and `-----BEGIN PGP SIGNATURE-----`, lines concatenated), with
 * no cryptographic check. Returns null unless the block has the clear-signed layout.
 * Useful to compare the claimed hash when the public key is not available.
 */
export function extractSignedHash(signatureBlock: string): string | null {
  const lines = signatureBlock.split(/\r\n|\r|\n/);
  let state: 'before' | 'headers' | 'body' = 'before';
  let text = '';
  for (const line of lines) {
    if (state === 'before') {
      if (/^-----BEGIN PGP (SIGNED )?MESSAGE-----$/.test(line)) state = 'headers';
    } else if (state === 'headers') {
      if (line === '') state = 'body';
      else if (!/^[^:]+: .+$/.test(line)) return null;
    } else {
      if (line === '-----BEGIN PGP SIGNATURE-----') return text;
      // Undo dash-escaping (RFC 4880 7.1) - absent from a hex digest anyway.
      text += line.startsWith('- ') ? line.slice(2) : line;
    }
  }
  return null; // no signature block after the text
}
