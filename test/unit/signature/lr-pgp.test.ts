import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { canonicalHash } from '../../../src/domain/signature/canonical-hash.js';
import { extractSignedHash, LR_PGP_SIGNING_METHOD, SignatureError } from '../../../src/domain/signature/lr-pgp.js';
import { signEnvelope } from '../../../src/domain/signature/lr-pgp-sign.js';
import { verifyEnvelopeSignature, type VerifyResult } from '../../../src/domain/signature/lr-pgp-verify.js';
import { generateNodeKeyPair, type NodeKeyPair } from '../../../src/domain/signature/node-key-pair.js';

const fixtureDir = new URL('../../fixtures/signatures/', import.meta.url);

function loadJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, fixtureDir), 'utf8')) as Record<string, unknown>;
}

/** The first document of the nsdl_dc corpus sample, its old (NSDL) signature removed. */
function sampleDoc(): Record<string, unknown> {
  const doc = loadJson('nsdl_dc-corpus-first-doc.json');
  delete doc.digital_signature;
  return doc;
}

const KEY_LOCATIONS = ['https://node.example.org/pubkey'];

function expectFailure(result: VerifyResult, code: string): void {
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  if (!result.ok) {
    expect(result.code).to.equal(code);
    expect(result.reason).to.be.a('string').and.not.equal('');
  }
}

async function clearsign(text: string, key: string, config?: openpgp.PartialConfig): Promise<string> {
  const privateKey = await openpgp.readPrivateKey({ armoredKey: key });
  const message = await openpgp.createCleartextMessage({ text });
  return openpgp.sign({ message, signingKeys: privateKey, ...(config ? { config } : {}) });
}

describe('LR-PGP.1.0 signing and verification', () => {
  let node: NodeKeyPair;
  let other: NodeKeyPair;

  before(async () => {
    node = await generateNodeKeyPair('LR Test Node', 'node@example.org');
    other = await generateNodeKeyPair('Someone Else', 'else@example.org');
  });

  describe('generateNodeKeyPair', () => {
    it('returns armored ECC keys and a lowercase fingerprint', async () => {
      expect(node.publicKeyArmored).to.contain('-----BEGIN PGP PUBLIC KEY BLOCK-----');
      expect(node.privateKeyArmored).to.contain('-----BEGIN PGP PRIVATE KEY BLOCK-----');
      expect(node.fingerprint).to.match(/^[0-9a-f]{40}$/);
      const key = await openpgp.readKey({ armoredKey: node.publicKeyArmored });
      expect(key.getFingerprint()).to.equal(node.fingerprint);
      expect(key.getAlgorithmInfo().algorithm).to.equal('eddsaLegacy');
      expect(key.getUserIDs()).to.deep.equal(['LR Test Node <node@example.org>']);
      expect(other.fingerprint).to.not.equal(node.fingerprint);
    });

    it('can encrypt the private key with a passphrase', async () => {
      const pair = await generateNodeKeyPair('Locked', 'locked@example.org', { passphrase: 'secret' });
      const key = await openpgp.readPrivateKey({ armoredKey: pair.privateKeyArmored });
      expect(key.isDecrypted()).to.equal(false);
    });

    it('can generate RSA keys for old GnuPG peers', async () => {
      const pair = await generateNodeKeyPair('RSA Node', 'rsa@example.org', { type: 'rsa', rsaBits: 2048 });
      const key = await openpgp.readKey({ armoredKey: pair.publicKeyArmored });
      expect(key.getAlgorithmInfo()).to.include({ algorithm: 'rsaEncryptSign', bits: 2048 });
      const signed = await signEnvelope(sampleDoc(), pair.privateKeyArmored, undefined, KEY_LOCATIONS);
      const result = await verifyEnvelopeSignature(signed, [pair.publicKeyArmored]);
      expect(result).to.include({ ok: true, fingerprint: pair.fingerprint });
    });
  });

  describe('signEnvelope + verifyEnvelopeSignature', () => {
    it('signs a sample document that then verifies with the node key', async () => {
      const doc = sampleDoc();
      const before = JSON.stringify(doc);
      const signed = await signEnvelope(doc, node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expect(JSON.stringify(doc)).to.equal(before); // input untouched

      const sig = signed.digital_signature;
      expect(sig.signing_method).to.equal(LR_PGP_SIGNING_METHOD);
      expect(sig.key_location).to.deep.equal(KEY_LOCATIONS);
      expect(sig.key_owner).to.equal('LR Test Node <node@example.org>');
      expect(sig.signature).to.match(/^-----BEGIN PGP SIGNED MESSAGE-----\r?\nHash: /);
      expect(extractSignedHash(sig.signature)).to.equal(canonicalHash(doc));
      expect(signed.resource_locator).to.equal(doc.resource_locator);

      const result = await verifyEnvelopeSignature(signed, [node.publicKeyArmored]);
      expect(result.ok, JSON.stringify(result)).to.equal(true);
      if (result.ok) {
        expect(result.fingerprint).to.equal(node.fingerprint);
        expect(result.keyId).to.match(/^[0-9a-f]{16}$/);
        expect(result.numberMode).to.equal('null');
      }
    });

    it('survives a JSON round trip and changes to the fields outside the hash', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const stored = JSON.parse(JSON.stringify(signed)) as Record<string, unknown>;
      Object.assign(stored, {
        _id: 'abc',
        _rev: '1-abc',
        doc_ID: 'abc',
        node_timestamp: '2024-01-01T00:00:00Z',
        create_timestamp: '2024-01-01T00:00:00Z',
        update_timestamp: '2024-01-01T00:00:00Z',
        publishing_node: 'node-1',
      });
      const reordered = Object.fromEntries(Object.entries(stored).reverse());
      expect(await verifyEnvelopeSignature(reordered, [node.publicKeyArmored])).to.include({ ok: true });
    });

    it('replaces an existing signature', async () => {
      const original = loadJson('nsdl_dc-corpus-first-doc.json');
      const signed = await signEnvelope(original, node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expect(signed.digital_signature.key_location).to.deep.equal(KEY_LOCATIONS);
      expect((original.digital_signature as { key_owner: string }).key_owner).to.contain('National Science');
      expect(await verifyEnvelopeSignature(signed, [node.publicKeyArmored])).to.include({ ok: true });
    });

    it('rejects a document with one field tampered with', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expectFailure(
        await verifyEnvelopeSignature({ ...signed, resource_locator: 'http://evil.example/' }, [node.publicKeyArmored]),
        'hash-mismatch',
      );
      const keys = [...(signed.keys as string[]), 'injected'];
      expectFailure(await verifyEnvelopeSignature({ ...signed, keys }, [node.publicKeyArmored]), 'hash-mismatch');
      const withoutTos: Record<string, unknown> = { ...signed };
      delete withoutTos.TOS;
      expectFailure(await verifyEnvelopeSignature(withoutTos, [node.publicKeyArmored]), 'hash-mismatch');
    });

    it('rejects a clear-signed text edited to match a tampered document', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const tampered = { ...signed, resource_locator: 'http://evil.example/' };
      const original = canonicalHash(signed);
      const forged = signed.digital_signature.signature.replace(original, canonicalHash(tampered));
      expect(forged).to.not.equal(signed.digital_signature.signature);
      const result = await verifyEnvelopeSignature(
        { ...tampered, digital_signature: { ...signed.digital_signature, signature: forged } },
        [node.publicKeyArmored],
      );
      expectFailure(result, 'signature-invalid');
    });

    it('rejects a signature checked against the wrong key', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expectFailure(await verifyEnvelopeSignature(signed, [other.publicKeyArmored]), 'signature-invalid');
    });

    it('accepts when one of several keys is the right one, and reports that key', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const result = await verifyEnvelopeSignature(signed, ['not a key', other.publicKeyArmored, node.publicKeyArmored]);
      expect(result).to.include({ ok: true, fingerprint: node.fingerprint });
    });

    it('accepts a private key block as the verification key', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expect(await verifyEnvelopeSignature(signed, [node.privateKeyArmored])).to.include({ ok: true });
    });

    it('rejects a wrong or missing signing_method', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      for (const method of ['LR-PGP.2.0', 'lr-pgp.1.0', '', undefined, 1]) {
        const doc = { ...signed, digital_signature: { ...signed.digital_signature, signing_method: method } };
        expectFailure(await verifyEnvelopeSignature(doc, [node.publicKeyArmored]), 'unsupported-signing-method');
      }
    });

    it('rejects malformed signature blocks', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const sig = signed.digital_signature;
      const keys = [node.publicKeyArmored];
      expectFailure(await verifyEnvelopeSignature(sampleDoc(), keys), 'missing-signature');
      expectFailure(await verifyEnvelopeSignature(null, keys), 'not-an-envelope');
      expectFailure(await verifyEnvelopeSignature([signed], keys), 'not-an-envelope');
      expectFailure(await verifyEnvelopeSignature({ ...signed, digital_signature: 'x' }, keys), 'bad-signature-format');
      const variants: Record<string, unknown>[] = [
        { ...sig, signature: '' },
        { ...sig, signature: 42 },
        { ...sig, key_location: [] },
        { ...sig, key_location: 'https://node.example.org/pubkey' },
        { ...sig, key_location: [1] },
        { ...sig, key_owner: ['x'] },
        { ...sig, signature: 'not a PGP message' },
      ];
      for (const variant of variants) {
        expectFailure(await verifyEnvelopeSignature({ ...signed, digital_signature: variant }, keys), 'bad-signature-format');
      }
    });

    it('reports when no usable key was supplied', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      expectFailure(await verifyEnvelopeSignature(signed, []), 'no-usable-key');
      expectFailure(await verifyEnvelopeSignature(signed, ['garbage']), 'no-usable-key');
    });

    it('signs with a passphrase-protected key and refuses a wrong or missing passphrase', async () => {
      const locked = await generateNodeKeyPair('Locked', 'locked@example.org', { passphrase: 'correct horse' });
      const signed = await signEnvelope(sampleDoc(), locked.privateKeyArmored, 'correct horse', KEY_LOCATIONS);
      expect(await verifyEnvelopeSignature(signed, [locked.publicKeyArmored])).to.include({ ok: true });
      await expectRejection(signEnvelope(sampleDoc(), locked.privateKeyArmored, 'wrong', KEY_LOCATIONS), /decrypt/);
      await expectRejection(signEnvelope(sampleDoc(), locked.privateKeyArmored, undefined, KEY_LOCATIONS), /passphrase/);
    });

    it('refuses to sign without key locations or with an unreadable key', async () => {
      await expectRejection(signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, []), /keyLocations/);
      await expectRejection(signEnvelope(sampleDoc(), 'nope', undefined, KEY_LOCATIONS), /private key/);
      await expectRejection(signEnvelope(sampleDoc(), node.publicKeyArmored, undefined, KEY_LOCATIONS), /private key/);
    });

    it('uses a custom key_owner when given', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS, {
        keyOwner: 'Example Node <admin@example.org>',
      });
      expect(signed.digital_signature.key_owner).to.equal('Example Node <admin@example.org>');
    });
  });

  describe('number modes', () => {
    const withNumbers = (): Record<string, unknown> => ({
      ...sampleDoc(),
      resource_data: { measure: { scaleMin: 1, scaleMax: 5, value: 2.5 }, list: ['a', 3] },
    });

    it("default 'null' mode: numbers are not covered by the signature (as in LRSignature)", async () => {
      const signed = await signEnvelope(withNumbers(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const changed = { ...signed, resource_data: { measure: { scaleMin: 0, scaleMax: 10, value: 9 }, list: ['a'] } };
      expect(await verifyEnvelopeSignature(changed, [node.publicKeyArmored])).to.include({ ok: true, numberMode: 'null' });
    });

    it("'keep-int' signatures verify and do cover numbers", async () => {
      const signed = await signEnvelope(withNumbers(), node.privateKeyArmored, undefined, KEY_LOCATIONS, {
        numberMode: 'keep-int',
      });
      expect(await verifyEnvelopeSignature(signed, [node.publicKeyArmored])).to.include({
        ok: true,
        numberMode: 'keep-int',
      });
      const changed = { ...signed, resource_data: { measure: { scaleMin: 1, scaleMax: 6, value: 2.5 }, list: ['a', 3] } };
      expectFailure(await verifyEnvelopeSignature(changed, [node.publicKeyArmored]), 'hash-mismatch');
    });
  });

  describe('SHA-1 clear-signed messages (every historical LR signature)', () => {
    // openpgp.js only signs with SHA-1 when the key is RSA (ECC needs >= SHA-256) and the key's
    // own preferences list SHA-1, so generate such a key directly.
    const sha1Config: openpgp.PartialConfig = {
      preferredHashAlgorithm: openpgp.enums.hash.sha1,
      rejectMessageHashAlgorithms: new Set(),
      rejectHashAlgorithms: new Set(),
      nonDeterministicSignaturesViaNotation: false, // the salt notation has no SHA-1 variant
    };
    let rsa: { publicKeyArmored: string; privateKeyArmored: string; fingerprint: string };
    before(async () => {
      const generated = await openpgp.generateKey({
        type: 'rsa',
        rsaBits: 2048,
        userIDs: [{ name: 'Legacy Signer', email: 'legacy@example.org' }],
        config: sha1Config,
        format: 'object',
      });
      rsa = {
        publicKeyArmored: generated.publicKey.armor(),
        privateKeyArmored: generated.privateKey.armor(),
        fingerprint: generated.publicKey.getFingerprint(),
      };
    });

    async function sha1Signed(): Promise<Record<string, unknown>> {
      const doc = sampleDoc();
      const signature = await clearsign(canonicalHash(doc), rsa.privateKeyArmored, sha1Config);
      expect(signature).to.match(/\nHash: SHA1\r?\n/);
      return {
        ...doc,
        digital_signature: { signature, key_location: KEY_LOCATIONS, signing_method: LR_PGP_SIGNING_METHOD },
      };
    }

    it('are accepted by default', async () => {
      expect(await verifyEnvelopeSignature(await sha1Signed(), [rsa.publicKeyArmored])).to.include({
        ok: true,
        fingerprint: rsa.fingerprint,
      });
    });

    it('are refused with allowSha1: false', async () => {
      const result = await verifyEnvelopeSignature(await sha1Signed(), [rsa.publicKeyArmored], { allowSha1: false });
      expectFailure(result, 'signature-invalid');
      if (!result.ok) expect(result.reason).to.match(/SHA1/i);
    });
  });

  describe('MD5 and RIPEMD-160 clear-signed messages (broken hashes) are refused, SHA-1 allowed or not', () => {
    for (const [name, hash, header] of [['MD5', openpgp.enums.hash.md5, 'MD5'], ['RIPEMD-160', openpgp.enums.hash.ripemd, 'RIPEMD']] as const) {
      it(name, async () => {
        // A key whose preferences name the hash, made and used with nothing rejected (as an old tool would).
        const config: openpgp.PartialConfig = { preferredHashAlgorithm: hash, rejectMessageHashAlgorithms: new Set(), rejectHashAlgorithms: new Set(), nonDeterministicSignaturesViaNotation: false };
        const key = await openpgp.generateKey({ type: 'rsa', rsaBits: 2048, userIDs: [{ name: 'Broken Hash', email: 'broken@example.org' }], config, format: 'object' });
        const doc = sampleDoc();
        const signature = await clearsign(canonicalHash(doc), key.privateKey.armor(), config);
        expect(signature).to.contain(`\nHash: ${header}\n`);
        const signed = { ...doc, digital_signature: { signature, key_location: KEY_LOCATIONS, signing_method: LR_PGP_SIGNING_METHOD } };
        for (const options of [{}, { allowSha1: false }]) {
          expectFailure(await verifyEnvelopeSignature(signed, [key.publicKey.armor()], options), 'signature-invalid');
        }
      });
    }
  });

  describe('real signed samples (their public keys are not in the samples)', () => {
    const samples = [
      'rd3-lr-paradata-1.0-as-stored-signed.json',
      'rd3-lrmi-microdata-json-signed-inbloom.json',
      'rd3-lr-paradata-with-numbers-signed-0.49.json',
    ];

    for (const file of samples) {
      it(`${file}: signed hash = canonical hash; signature fails only for lack of the key`, async () => {
        const doc = loadJson(file);
        const sig = doc.digital_signature as { signature: string };
        const message = await openpgp.readCleartextMessage({ cleartextMessage: sig.signature });
        expect(message.getText()).to.equal(extractSignedHash(sig.signature));
        // With some key: the hash check passes, the PGP check then fails (unknown signer).
        const result = await verifyEnvelopeSignature(doc, [node.publicKeyArmored]);
        expectFailure(result, 'signature-invalid');
        // Tampering is caught before any key is needed.
        expectFailure(await verifyEnvelopeSignature({ ...doc, active: false }, [node.publicKeyArmored]), 'hash-mismatch');
      });
    }

    it('the NSDL production document signed an empty text and is rejected', async () => {
      const doc = loadJson('rd3-nsdl_dc-as-stored.json');
      expect(extractSignedHash((doc.digital_signature as { signature: string }).signature)).to.equal('');
      expectFailure(await verifyEnvelopeSignature(doc, [node.publicKeyArmored]), 'empty-signed-text');
    });

    it('the corpus sample also carries an empty-text NSDL signature', async () => {
      const doc = loadJson('nsdl_dc-corpus-first-doc.json');
      expectFailure(await verifyEnvelopeSignature(doc, [node.publicKeyArmored]), 'empty-signed-text');
    });
  });

  describe('extractSignedHash', () => {
    it('extracts the text the way LRSignature does', () => {
      const block = '-----BEGIN PGP SIGNED MESSAGE-----\r\nHash: SHA256\r\n\r\nabc\r\n-----BEGIN PGP SIGNATURE-----\r\n\r\nx\r\n';
      expect(extractSignedHash(block)).to.equal('abc');
      expect(extractSignedHash('no armor here')).to.equal(null);
      expect(extractSignedHash('-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA1\n\nabc')).to.equal(null);
    });
  });
});

async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(SignatureError);
    expect((err as Error).message).to.match(pattern);
    return;
  }
  expect.fail('expected a rejection');
}
