/**
 * Clear-signing many texts with one private key, as `openpgp.sign` would, with openpgp's key
 * checks done once a second instead of once a text.
 *
 * `openpgp.sign` checks the key again at every call: the self-signatures and the signing
 * subkey's binding (`getSigningKey`), and the primary user whose preferences pick the hash. In
 * proxy signing that was 11% of the CPU (docs/benchmarks-log.md, session 28). What those checks
 * depend on is the key, which nothing here changes, and the signature's creation time, which
 * OpenPGP records in whole seconds (RFC 4880 §5.2.3.4; openpgp's `normalizeDate`). So for each
 * second a text is signed in, `openpgp.sign` itself signs a probe text with every check; the
 * packet it makes names the signing key and the hash it chose at that second. Each text of that
 * second is then signed as openpgp's `CleartextMessage.sign` signs it (openpgp 6.3.2,
 * `createSignaturePacket`): a text signature packet with that key, hash and creation time, armored
 * by openpgp's `CleartextMessage`. A key that fails openpgp's checks fails every text of its
 * second with openpgp's own error.
 */
import * as openpgp from 'openpgp';
import { fullConfig, literalText, packets, signatureOf, type SignedCleartext } from './openpgp-packets.js';

interface SecondsChoice {
  keyPacket: openpgp.SecretKeyPacket | openpgp.SecretSubkeyPacket;
  hashAlgorithm: openpgp.enums.hash;
}

const PROBE_TEXT = 'LR-PGP.1.0 signing probe';

export class ClearSigner {
  private readonly config = fullConfig();
  private current: { second: number; choice: Promise<SecondsChoice> } | undefined;

  constructor(private readonly key: openpgp.PrivateKey) {}

  /** The armored clear-signed message of `text`, made at `date` (default now). */
  async sign(text: string, date: Date = new Date()): Promise<string> {
    const second = Math.floor(date.getTime() / 1000);
    const created = new Date(second * 1000);
    if (this.current?.second !== second) this.current = { second, choice: this.choose(created) };
    const { keyPacket, hashAlgorithm } = await this.current.choice;
    const message = new packets.CleartextMessage(text);
    const signature = new packets.SignaturePacket();
    signature.signatureType = openpgp.enums.signature.text;
    signature.publicKeyAlgorithm = keyPacket.algorithm;
    signature.hashAlgorithm = hashAlgorithm;
    // Detached, as openpgp signs cleartext: the literal packet is hashed, not carried.
    await signature.sign(keyPacket, literalText(message.text), created, true, this.config);
    return new packets.CleartextMessage(message.text, signatureOf(signature)).armor(this.config);
  }

  /** openpgp.sign's choice of signing key and hash at `created`, with all of its checks. */
  private async choose(created: Date): Promise<SecondsChoice> {
    const probe: SignedCleartext = await openpgp.sign({
      message: await openpgp.createCleartextMessage({ text: PROBE_TEXT }),
      signingKeys: this.key,
      date: created,
      format: 'object',
    }) as SignedCleartext;
    const made = probe.signature.packets[0];
    const signing = made === undefined ? undefined : this.key.getKeys(made.issuerKeyID)[0];
    if (made?.hashAlgorithm == null || signing === undefined) throw new Error('openpgp made no signature with the key');
    return { keyPacket: signing.keyPacket as SecondsChoice['keyPacket'], hashAlgorithm: made.hashAlgorithm };
  }
}
