/**
 * Verifying a clear-signed message as `openpgp.verify` does (openpgp 6.3.2, `CleartextMessage.verify`
 * and `createVerificationObject`), with its check of the signer's key remembered per key, key id
 * and signature time.
 *
 * After the signature itself, openpgp checks that the key was valid when the signature was made
 * (`getSigningKey` at the signature's creation time): a walk over the key's self-signatures that
 * was 14% of verification's CPU (docs/benchmarks-log.md, session 28). Its answer depends only on
 * the key (a parsed key object, which nothing here changes), the key id, that time (whole seconds)
 * and the configuration, so it is asked once for each of these: the documents of a batch signed
 * within the same second share one walk.
 */
import * as openpgp from 'openpgp';
import { literalText, signatureData, type SignedCleartext } from './openpgp-packets.js';

/** Per key object: remembered walks by key id, signature time and configuration; a guard, not a working bound. */
const MAX_CHECKS_PER_KEY = 1000;
const keyChecks = new WeakMap<openpgp.PublicKey, Map<string, Promise<unknown>>>();

export interface ClearVerification {
  /** Key id (hex) of the key or subkey that made the first valid signature; undefined when none did. */
  keyId?: string;
  /** The key that holds it. */
  signer?: openpgp.PublicKey;
  /** Why each signature of the message failed, when none verified. */
  errors: string[];
}

/**
 * The first text or binary signature of `message` that verifies with one of `keys` at `date`, as
 * openpgp.verify would accept it. `configKey` names `config` in the remembered key checks (the
 * caller's configurations differ only by it).
 */
export async function verifyClearSigned(
  message: openpgp.CleartextMessage,
  keys: readonly openpgp.PublicKey[],
  date: Date,
  config: openpgp.Config,
  configKey: string,
): Promise<ClearVerification> {
  const { text, signature } = message as SignedCleartext;
  const literal = literalText(text);
  const errors: string[] = [];
  const candidates = signature.packets
    .filterByTag(openpgp.enums.packet.signature)
    .filter((packet) => packet.signatureType === openpgp.enums.signature.text || packet.signatureType === openpgp.enums.signature.binary);
  for (const packet of candidates) {
    const signer = keys.find((key) => key.getKeys(packet.issuerKeyID).length > 0);
    const signingKey = signer?.getKeys(packet.issuerKeyID)[0];
    try {
      if (signer === undefined || signingKey === undefined) throw new Error(`Could not find signing key with key ID ${packet.issuerKeyID.toHex()}`);
      await signatureData(packet).verify(signingKey.keyPacket, packet.signatureType as openpgp.enums.signature, literal, date, true, config);
      const created = packet.created as Date;
      if (signingKey.getCreationTime() > created) throw new Error('Key is newer than the signature');
      await keyValidAt(signer, signingKey.getKeyID(), created, config, configKey);
      return { keyId: packet.issuerKeyID.toHex(), signer, errors };
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  return { errors };
}

/** openpgp's `getSigningKey(keyId, created)` on `key`, asked once per key id, time and configuration. */
function keyValidAt(key: openpgp.PublicKey, keyId: openpgp.KeyID, created: Date, config: openpgp.Config, configKey: string): Promise<unknown> {
  let checks = keyChecks.get(key);
  if (!checks) keyChecks.set(key, checks = new Map());
  const id = `${keyId.toHex()}\0${created.getTime()}\0${configKey}`;
  let check = checks.get(id);
  if (!check) {
    if (checks.size >= MAX_CHECKS_PER_KEY) checks.clear();
    check = key.getSigningKey(keyId, created, undefined, config);
    checks.set(id, check);
  }
  return check;
}
