/** The node:crypto clear-signer of Ed25519 keys (issue 19) makes what openpgp.js makes, and only for such keys. */
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { ed25519ClearSigner } from '../../../src/domain/signature/ed25519-clearsign.js';
import { generateNodeKeyPair } from '../../../src/domain/signature/lr-pgp.js';

type Packet = { signatureType: number; hashAlgorithm: number; publicKeyAlgorithm: number; issuerKeyID: openpgp.KeyID; issuerFingerprint: Uint8Array; rawNotations: { name: string; value: Uint8Array }[]; created: Date };
const packetOf = async (armored: string): Promise<Packet> => ((await openpgp.readCleartextMessage({ cleartextMessage: armored })) as unknown as { signature: { packets: Packet[] } }).signature.packets[0] as Packet;
const shape = (p: Packet) => ({ type: p.signatureType, hash: p.hashAlgorithm, algorithm: p.publicKeyAlgorithm, keyId: p.issuerKeyID.toHex(), fingerprint: Buffer.from(p.issuerFingerprint).toString('hex'), notations: p.rawNotations.map((n) => [n.name, n.value.length]) });

describe('Ed25519 clear-signing through node:crypto', () => {
  it('makes the signature packet openpgp.js makes for the key (type, hash, issuer, salt notation), and it verifies', async () => {
    const pair = await generateNodeKeyPair('Node', '', { comment: 'node 1' });
    const key = await openpgp.readPrivateKey({ armoredKey: pair.privateKeyArmored });
    const signer = await ed25519ClearSigner(key);
    expect(signer).to.be.a('function');
    const text = 'a3f5'.repeat(16);
    const date = new Date(Math.floor(Date.now() / 1000) * 1000 + 60000); // after the key's creation
    const ours = (signer as (text: string, date?: Date) => string)(text, date);
    const theirs = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text }), signingKeys: key, date });
    expect(shape(await packetOf(ours))).to.deep.equal(shape(await packetOf(theirs)));
    expect((await packetOf(ours)).created.toISOString()).to.equal(date.toISOString());
    expect(ours.split('\n').slice(0, 4)).to.deep.equal(theirs.split('\n').slice(0, 4));
    const verified = await openpgp.verify({ message: await openpgp.readCleartextMessage({ cleartextMessage: ours }), verificationKeys: key.toPublic(), expectSigned: true, date: new Date(date.getTime() + 1000) });
    expect(verified.data).to.equal(text);
  });

  it('signs any text as openpgp.js reads it back: line ends, trailing blanks, dash-escaping', async () => {
    const pair = await generateNodeKeyPair('Node', 'node@example.org');
    const key = await openpgp.readPrivateKey({ armoredKey: pair.privateKeyArmored });
    const signer = await ed25519ClearSigner(key) as (text: string) => string;
    for (const text of ['one line', 'two\nlines', '- dashed\n-- more', 'trailing blanks  \nend']) {
      const verified = await openpgp.verify({ message: await openpgp.readCleartextMessage({ cleartextMessage: signer(text) }), verificationKeys: key.toPublic(), expectSigned: true });
      expect(verified.data, text).to.equal(text.replace(/[ \t]+$/gm, ''));
    }
  });

  it('offers no signer for an RSA key (openpgp.js signs it, as before)', async () => {
    const pair = await generateNodeKeyPair('RSA Node', 'rsa@example.org', { type: 'rsa', rsaBits: 2048 });
    expect(await ed25519ClearSigner(await openpgp.readPrivateKey({ armoredKey: pair.privateKeyArmored }))).to.equal(undefined);
  });
});
