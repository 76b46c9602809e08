/**
 * The signature worker pool (issue 19) gives exactly the results of the in-thread functions:
 * signing, every verification outcome, the LR-PGP.1.0 test vectors and the real signed samples.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { canonicalHash } from '../../../src/domain/signature/canonical-hash.js';
import { SignatureError } from '../../../src/domain/signature/lr-pgp.js';
import { signEnvelope } from '../../../src/domain/signature/lr-pgp-sign.js';
import { verifyEnvelopeSignature } from '../../../src/domain/signature/lr-pgp-verify.js';
import { generateNodeKeyPair, type NodeKeyPair } from '../../../src/domain/signature/node-key-pair.js';
import { SignaturePool } from '../../../src/domain/signature/signature-pool.js';
import { ensureBuilt } from '../../support/cli.js';
import { ROOT } from '../../support/process.js';

const fixtureDir = new URL('../../fixtures/signatures/', import.meta.url);
const loadJson = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(name, fixtureDir), 'utf8')) as Record<string, unknown>;
const KEY_LOCATIONS = ['https://node.example.org/pubkey'];

function sampleDoc(i = 0): Record<string, unknown> {
  const doc = loadJson('nsdl_dc-corpus-first-doc.json');
  delete doc.digital_signature;
  return { ...doc, keys: [`sample-${i}`] };
}

for (const size of [2, 0]) {
  describe(`signature pool (${size === 0 ? 'in-thread' : `${size} workers`})`, () => {
    let pool: SignaturePool;
    let node: NodeKeyPair;
    let other: NodeKeyPair;

    before(async () => {
      pool = new SignaturePool(size);
      [node, other] = await Promise.all([generateNodeKeyPair('Pool Node', 'pool@example.org'), generateNodeKeyPair('Other', 'other@example.org')]);
    });
    after(async () => { await pool.close(); });

    it('signs many documents at once as signEnvelope does, naming the signing key', async () => {
      const docs = Array.from({ length: 12 }, (_, i) => sampleDoc(i));
      const outcomes = await Promise.all(docs.map((doc) => pool.sign(doc, node.privateKeyArmored, undefined, KEY_LOCATIONS)));
      const reference = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      for (const [i, outcome] of outcomes.entries()) {
        const { signature, ...rest } = outcome.digital_signature;
        expect({ ...rest, signature: reference.digital_signature.signature }).to.deep.equal(reference.digital_signature);
        expect(outcome.fingerprint).to.equal(node.fingerprint);
        const signed = { ...docs[i], digital_signature: outcome.digital_signature };
        expect(await verifyEnvelopeSignature(signed, [node.publicKeyArmored])).to.deep.equal({ ok: true, fingerprint: node.fingerprint, keyId: outcome.keyId, numberMode: 'null' });
        expect(signature).to.contain(canonicalHash(docs[i]));
      }
    });

    it('gives verifyEnvelopeSignature\'s result for good, tampered, wrongly keyed and malformed documents', async () => {
      const signed = await signEnvelope(sampleDoc(), node.privateKeyArmored, undefined, KEY_LOCATIONS);
      const cases: [unknown, string[]][] = [
        [signed, [node.publicKeyArmored]],
        [signed, [other.publicKeyArmored, node.publicKeyArmored]],
        [{ ...signed, keys: ['tampered'] }, [node.publicKeyArmored]],
        [signed, [other.publicKeyArmored]],
        [signed, ['garbage']],
        [signed, []],
        [{ ...signed, digital_signature: { ...signed.digital_signature, signing_method: 'LR-PGP.2.0' } }, [node.publicKeyArmored]],
        [{ ...signed, digital_signature: { ...signed.digital_signature, signature: 'not a PGP message' } }, [node.publicKeyArmored]],
        [[], [node.publicKeyArmored]],
      ];
      for (const [doc, keys] of cases) {
        expect(await pool.verify(doc, keys)).to.deep.equal(await verifyEnvelopeSignature(doc, keys));
      }
    });

    it('gives the same results on the real signed samples and the hash test vectors', async () => {
      const vectors = loadJson('signature-hash-test-vectors.json') as { vectors?: { file: string }[] } | { file: string }[];
      const files = (Array.isArray(vectors) ? vectors : vectors.vectors ?? []).map((vector) => vector.file);
      expect(files.length).to.be.greaterThan(0);
      for (const file of new Set([...files, 'rd3-lr-paradata-1.0-as-stored-signed.json', 'rd3-lrmi-microdata-json-signed-inbloom.json'])) {
        const doc = loadJson(file);
        for (const keys of [[node.publicKeyArmored], []]) expect(await pool.verify(doc, keys), file).to.deep.equal(await verifyEnvelopeSignature(doc, keys));
      }
    });

    it('refuses a locked key without the right passphrase with the same SignatureError', async () => {
      const locked = await generateNodeKeyPair('Locked', 'locked@example.org', { passphrase: 'correct horse' });
      const signed = await pool.sign(sampleDoc(), locked.privateKeyArmored, 'correct horse', KEY_LOCATIONS);
      expect(await verifyEnvelopeSignature({ ...sampleDoc(), digital_signature: signed.digital_signature }, [locked.publicKeyArmored])).to.include({ ok: true });
      for (const passphrase of ['wrong', undefined]) {
        const failure = await pool.sign(sampleDoc(), locked.privateKeyArmored, passphrase, KEY_LOCATIONS).then(() => undefined, (error: unknown) => error);
        expect(failure).to.be.instanceOf(SignatureError);
        expect((failure as Error).message).to.match(passphrase ? /decrypt/ : /passphrase/);
      }
    });
  });
}

describe('signature pool of the build (dist/, as `node bin/lr-node.js` runs it)', function () {
  this.timeout(180000);

  it('starts its workers from signature-worker.js and gives the source\'s results', async () => {
    ensureBuilt();
    const built = await import(pathToFileURL(path.join(ROOT, 'dist/src/domain/signature/signature-pool.js')).href) as { SignaturePool: typeof SignaturePool };
    const pool = new built.SignaturePool(2);
    try {
      const node = await generateNodeKeyPair('Built Node', 'built@example.org');
      const outcomes = await Promise.all([0, 1, 2, 3].map((i) => pool.sign(sampleDoc(i), node.privateKeyArmored, undefined, KEY_LOCATIONS)));
      for (const [i, outcome] of outcomes.entries()) {
        const signed = { ...sampleDoc(i), digital_signature: outcome.digital_signature };
        expect(await pool.verify(signed, [node.publicKeyArmored])).to.deep.equal(await verifyEnvelopeSignature(signed, [node.publicKeyArmored]));
        expect(await pool.verify(signed, [node.publicKeyArmored])).to.include({ ok: true, fingerprint: node.fingerprint });
      }
    } finally {
      await pool.close();
    }
  });
});
