/**
 * Clear-signing and its verification with openpgp's key checks done once a second
 * (src/domain/signature/clear-signer.ts) and once per key, key id and signature time
 * (clear-verifier.ts): what they make and accept is what openpgp.sign and openpgp.verify make
 * and accept, keys that expire are refused from their expiry on, and the checks are counted.
 */
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { ClearSigner } from '../../../src/domain/signature/clear-signer.js';
import { verifyClearSigned } from '../../../src/domain/signature/clear-verifier.js';
import { fullConfig, literalText, packets, signatureOf, type SignedCleartext } from '../../../src/domain/signature/openpgp-packets.js';

const HASH = 'f3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const CREATED = new Date('2020-01-01T00:00:00Z');
const at = (seconds: number): Date => new Date(CREATED.getTime() + seconds * 1000);

/** A key made at CREATED that expires 100 s later. */
async function expiringKey(): Promise<{ privateKey: openpgp.PrivateKey; publicKey: openpgp.PublicKey }> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'Expiring', email: 'expiring@example.org' }],
    date: CREATED, keyExpirationTime: 100, format: 'object',
  });
  return { privateKey, publicKey };
}

/** openpgp.verify's own answer, the reference. */
async function openpgpAccepts(armored: string, key: openpgp.PublicKey, date: Date): Promise<boolean> {
  const message = await openpgp.readCleartextMessage({ cleartextMessage: armored });
  const { signatures } = await openpgp.verify({ message, verificationKeys: key, date, expectSigned: false });
  try {
    await signatures[0]?.verified;
    return signatures.length > 0;
  } catch {
    return false;
  }
}

/** A signature packet made at `date` whatever the key's validity (openpgp.sign would refuse an expired key). */
async function signedAt(privateKey: openpgp.PrivateKey, date: Date): Promise<string> {
  const message = new packets.CleartextMessage(HASH);
  const signature = new packets.SignaturePacket();
  signature.signatureType = openpgp.enums.signature.text;
  signature.publicKeyAlgorithm = privateKey.keyPacket.algorithm;
  signature.hashAlgorithm = openpgp.enums.hash.sha512;
  await signature.sign(privateKey.keyPacket as openpgp.SecretKeyPacket, literalText(message.text), date, true, fullConfig());
  return new packets.CleartextMessage(message.text, signatureOf(signature)).armor();
}

async function ourVerdict(armored: string, key: openpgp.PublicKey, date: Date): Promise<boolean> {
  const message = await openpgp.readCleartextMessage({ cleartextMessage: armored });
  const result = await verifyClearSigned(message, [key], date, fullConfig(), 'default');
  return result.signer !== undefined;
}

/** Counts a key object's getSigningKey calls (openpgp's per-signature walk over its self-signatures). */
function countWalks(key: openpgp.Key): () => number {
  let walks = 0;
  const original = key.getSigningKey.bind(key);
  key.getSigningKey = ((...args: Parameters<openpgp.Key['getSigningKey']>) => { walks += 1; return original(...args); }) as openpgp.Key['getSigningKey'];
  return () => walks;
}

describe('clear-signing with openpgp\'s key checks once a second', () => {
  it('makes the message openpgp.sign makes: the same key, hash, type and second, accepted by openpgp.verify', async () => {
    const { privateKey, publicKey } = await expiringKey();
    const ours = await new ClearSigner(privateKey).sign(HASH, new Date(at(10).getTime() + 700));
    const theirs = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: HASH }), signingKeys: privateKey, date: at(10) });
    const [ourPacket, theirPacket] = await Promise.all([ours, theirs].map(async (armored) => ((await openpgp.readCleartextMessage({ cleartextMessage: armored })) as SignedCleartext).signature.packets[0]));
    for (const field of ['signatureType', 'hashAlgorithm', 'publicKeyAlgorithm', 'version'] as const) {
      expect(ourPacket?.[field], field).to.equal(theirPacket?.[field]);
    }
    expect(ourPacket?.issuerKeyID.toHex()).to.equal(theirPacket?.issuerKeyID.toHex());
    expect(ourPacket?.created?.getTime(), 'created in whole seconds').to.equal(at(10).getTime());
    expect(ours.split('-----BEGIN PGP SIGNATURE-----')[0]).to.equal(theirs.split('-----BEGIN PGP SIGNATURE-----')[0]);
    expect(await openpgpAccepts(ours, publicKey, at(20))).to.equal(true);
  });

  it('refuses to sign from the second the key expires, after signing with it the second before', async () => {
    const { privateKey } = await expiringKey();
    const signer = new ClearSigner(privateKey);
    await signer.sign(HASH, at(99));
    let refusal: unknown;
    await signer.sign(HASH, at(100.2)).catch((err: unknown) => { refusal = err; });
    const openpgpRefusal = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: HASH }), signingKeys: privateKey, date: at(100) }).catch((err: unknown) => err);
    expect(refusal, 'signed with an expired key').to.be.instanceOf(Error);
    expect((refusal as Error).message).to.equal((openpgpRefusal as Error).message);
    await signer.sign(HASH, at(50)); // and an earlier date is checked afresh, not refused from memory
  });

  it('walks the key once for all the texts of one second', async () => {
    const { privateKey } = await expiringKey();
    const walks = countWalks(privateKey);
    const signer = new ClearSigner(privateKey);
    await Promise.all(Array.from({ length: 20 }, (_, i) => signer.sign(`${HASH}${i}`, new Date(at(30).getTime() + i * 40))));
    expect(walks()).to.equal(1);
    await signer.sign(HASH, at(31));
    expect(walks()).to.equal(2);
  });
});

describe('clear-signed verification with the key check remembered', () => {
  it('accepts and refuses what openpgp.verify accepts and refuses', async () => {
    const { privateKey, publicKey } = await expiringKey();
    const other = await expiringKey();
    const valid = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: HASH }), signingKeys: privateKey, date: at(10) });
    const cases: Array<[string, string, openpgp.PublicKey, Date, boolean]> = [
      ['valid', valid, publicKey, at(20), true],
      ['valid, verified after the key expired', valid, publicKey, at(500), true],
      ['signed with another key', valid, other.publicKey, at(20), false],
      ['verified before it was made', valid, publicKey, at(5), false],
      ['text changed', valid.replace(HASH, HASH.replace('f3', 'f4')), publicKey, at(20), false],
      ['made after the key expired', await signedAt(privateKey, at(200)), publicKey, at(300), false],
    ];
    for (const [what, armored, key, date, accepted] of cases) {
      expect(await openpgpAccepts(armored, key, date), `openpgp.verify: ${what}`).to.equal(accepted);
      expect(await ourVerdict(armored, key, date), what).to.equal(accepted);
    }
  });

  it('walks the key once for the signatures of one second, again for another second', async () => {
    const { privateKey, publicKey } = await expiringKey();
    const walks = countWalks(publicKey);
    const signer = new ClearSigner(privateKey);
    const sameSecond = await Promise.all(Array.from({ length: 10 }, (_, i) => signer.sign(`${HASH}${i}`, new Date(at(40).getTime() + i * 50))));
    for (const armored of sameSecond) expect(await ourVerdict(armored, publicKey, at(60))).to.equal(true);
    expect(walks()).to.equal(1);
    expect(await ourVerdict(await signer.sign(HASH, at(41)), publicKey, at(60))).to.equal(true);
    expect(walks()).to.equal(2);
  });
});
