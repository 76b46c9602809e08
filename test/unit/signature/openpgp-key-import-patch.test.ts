/**
 * The project's patch of openpgp (patches/openpgp+6.3.2.patch, issue 19): an Ed25519 key is
 * imported into WebCrypto once, not again at each signature and verification (openpgp 6.3.2
 * imported it every time: a third of the CPU of proxy signing with a key already decrypted).
 * Counted at WebCrypto's importKey, which openpgp reaches through `globalThis.crypto.subtle`;
 * and the cache never lends one key's import to another. Both builds are patched: tests and tsx
 * load the CommonJS one (through the functions proxy signing uses), the built node the ES module
 * (through openpgp's own API, last).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { readSigningKey, signEnvelopeWith, type SigningKey } from '../../../src/domain/signature/lr-pgp-sign.js';
import { readPublicKeys, verifyEnvelopeSignatureWith } from '../../../src/domain/signature/lr-pgp-verify.js';
import { generateNodeKeyPair } from '../../../src/domain/signature/node-key-pair.js';

const KEY_LOCATIONS = ['https://node.example.org/pubkey'];
const envelope = (i: number): Record<string, unknown> => ({
  doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true,
  identity: { submitter: 'Patch Test', submitter_type: 'agent' }, TOS: { submission_TOS: 'http://example.org/tos' },
  payload_placement: 'inline', payload_schema: ['json'], resource_locator: `http://example.org/${i}`, resource_data: { n: `${i}` },
});

describe('openpgp patch: each Ed25519 key imported into WebCrypto once', () => {
  const subtle = globalThis.crypto.subtle;
  const original = subtle.importKey.bind(subtle);
  let ed25519Imports: string[][] = [];
  let signer: SigningKey;
  let publicKeys: openpgp.PublicKey[];
  let otherPublicKeys: openpgp.PublicKey[];

  before(async () => {
    const [node, other] = await Promise.all([
      generateNodeKeyPair('Patch Node', 'patch@example.org'),
      generateNodeKeyPair('Other Node', 'other@example.org'),
    ]);
    signer = await readSigningKey(node.privateKeyArmored, undefined);
    publicKeys = await readPublicKeys([node.publicKeyArmored]);
    otherPublicKeys = await readPublicKeys([other.publicKeyArmored]);
    subtle.importKey = ((...args: Parameters<SubtleCrypto['importKey']>) => {
      const [, , algorithm, , usages] = args;
      if (algorithm === 'Ed25519') ed25519Imports.push([...usages]);
      return original(...args);
    }) as SubtleCrypto['importKey'];
  });
  after(() => { subtle.importKey = original; });
  beforeEach(() => { ed25519Imports = []; });

  it('signs many envelopes with one import of the private key', async () => {
    const signed = await Promise.all([0, 1, 2, 3, 4].map((i) => signEnvelopeWith(envelope(i), signer, KEY_LOCATIONS)));
    const again = await signEnvelopeWith(envelope(5), signer, KEY_LOCATIONS);
    expect(ed25519Imports.filter((usages) => usages.includes('sign'))).to.have.length.at.most(1);
    for (const doc of [...signed, again]) {
      const result = await verifyEnvelopeSignatureWith(doc, () => Promise.resolve(publicKeys));
      expect(result.ok, JSON.stringify(result)).to.equal(true);
    }
  });

  it('verifies many envelopes with one import of the public key', async () => {
    const signed = await Promise.all([0, 1, 2, 3].map((i) => signEnvelopeWith(envelope(i), signer, KEY_LOCATIONS)));
    await verifyEnvelopeSignatureWith(signed[0] ?? {}, () => Promise.resolve(publicKeys)); // imports it, if not yet imported
    ed25519Imports = [];
    const results = await Promise.all(signed.map((doc) => verifyEnvelopeSignatureWith(doc, () => Promise.resolve(publicKeys))));
    expect(results.map((result) => result.ok)).to.deep.equal([true, true, true, true]);
    expect(ed25519Imports.filter((usages) => usages.includes('verify'))).to.deep.equal([]);
  });

  it('never lends one key to another, nor one signature to another text', async () => {
    const doc = await signEnvelopeWith(envelope(9), signer, KEY_LOCATIONS);
    const other = await signEnvelopeWith(envelope(10), signer, KEY_LOCATIONS);
    expect((await verifyEnvelopeSignatureWith(doc, () => Promise.resolve(publicKeys))).ok).to.equal(true);
    expect(await verifyEnvelopeSignatureWith(doc, () => Promise.resolve(otherPublicKeys))).to.include({ ok: false });
    // The other envelope's hash with this envelope's signature: the key matches, the signature does not.
    const hashOf = (signed: typeof doc): string => signed.digital_signature.signature.split('\n').find((line) => /^[0-9a-f]{64}$/.test(line.trim())) ?? '';
    const swapped = { ...other, digital_signature: { ...doc.digital_signature, signature: doc.digital_signature.signature.replace(hashOf(doc), hashOf(other)) } };
    expect(hashOf(other)).to.match(/^[0-9a-f]{64}$/);
    expect(await verifyEnvelopeSignatureWith(swapped, () => Promise.resolve(publicKeys))).to.include({ ok: false, code: 'signature-invalid' });
  });

  it('does the same in the ES module build, which the built node loads', async () => {
    // The CommonJS entry (dist/node/openpgp.cjs, the patch's) sits beside the ES module build.
    const commonJs = createRequire(import.meta.url).resolve('openpgp');
    expect(path.basename(commonJs)).to.equal('openpgp.cjs');
    const esm = (await import(pathToFileURL(path.join(path.dirname(commonJs), 'openpgp.mjs')).href)) as typeof openpgp;
    const { privateKey: armored, publicKey: armoredPublic } = await esm.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'ESM' }], format: 'armored' });
    const [privateKey, verificationKeys] = await Promise.all([esm.readPrivateKey({ armoredKey: armored }), esm.readKey({ armoredKey: armoredPublic })]);
    ed25519Imports = [];
    const texts = ['a', 'b', 'c', 'd'];
    const signed = await Promise.all(texts.map(async (text) => esm.sign({ message: await esm.createCleartextMessage({ text }), signingKeys: privateKey })));
    expect(ed25519Imports.filter((usages) => usages.includes('sign'))).to.have.length.at.most(1);
    const check = async (armoredMessage: string): Promise<boolean> => {
      const { signatures } = await esm.verify({ message: await esm.readCleartextMessage({ cleartextMessage: armoredMessage }), verificationKeys });
      return signatures[0]?.verified.then(() => true, () => false) ?? false;
    };
    expect(await Promise.all(signed.map(check))).to.deep.equal([true, true, true, true]);
    expect(ed25519Imports.filter((usages) => usages.includes('verify'))).to.have.length.at.most(1);
    // The text "a" with the signature made over "b": same key, wrong signature.
    const swapped = (signed[1] ?? '').replace(/\n\nb\n/, '\n\na\n');
    expect(swapped).to.not.equal(signed[1]);
    expect(await check(swapped)).to.equal(false);
  });
});
