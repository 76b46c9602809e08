/**
 * lr-node publish's signing (src/cli/document-signing.ts): a passphrase-protected key is read and
 * decrypted once for a whole run (the decryption is the passphrase's KDF, about 60 ms here, which
 * every document paid before), and each document still gets its own signature over its own hash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { prepareDocument, readSigningKey } from '../../../src/cli/document-signing.js';
import { readPublicKeys, verifyEnvelopeSignatureWith } from '../../../src/domain/signature/lr-pgp-verify.js';
import { tempDir } from '../../support/node.js';

const PASSPHRASE = 'cli signing passphrase 41';
const doc = (i: number): Record<string, unknown> => ({
  doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true,
  identity: { submitter: 'CLI Test', submitter_type: 'agent' }, TOS: { submission_TOS: 'http://example.org/tos' },
  payload_placement: 'inline', payload_schema: ['json'], resource_locator: `http://example.org/${i}`, resource_data: { n: `${i}` },
});

describe('lr-node publish: documents signed with one reading of the key', () => {
  let keyFile: string;
  let publicKeys: openpgp.PublicKey[];

  before(async () => {
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'CLI Signer', email: 'cli-signer@example.org' }], passphrase: PASSPHRASE, format: 'armored',
    });
    keyFile = path.join(tempDir('lr-node-cli-signing-'), 'signer.key');
    fs.writeFileSync(keyFile, privateKey);
    publicKeys = await readPublicKeys([publicKey]);
  });

  it('decrypts the key at the first document and signs every document with that reading', async () => {
    const key = readSigningKey(keyFile, ['http://keys.example.org/signer.asc'], PASSPHRASE);
    const first = await prepareDocument(doc(0), 'f'.repeat(64), 0, key);
    const reading = key.read;
    expect(reading, 'the key is read at the first document').to.be.instanceOf(Promise);
    const rest = await Promise.all([1, 2, 3].map((i) => prepareDocument(doc(i), 'f'.repeat(64), i, key)));
    expect(key.read, 'the same reading serves the later documents').to.equal(reading);
    const signatures = new Set<string>();
    for (const signed of [first, ...rest] as Array<Record<string, unknown>>) {
      const result = await verifyEnvelopeSignatureWith(signed, () => Promise.resolve(publicKeys));
      expect(result.ok, JSON.stringify(result)).to.equal(true);
      signatures.add((signed.digital_signature as { signature: string }).signature);
    }
    expect(signatures.size, 'each document has its own signature').to.equal(4);
  });

  it('refuses every document with the decryption\'s error when the passphrase is wrong', async () => {
    const key = readSigningKey(keyFile, ['http://keys.example.org/signer.asc'], 'not the passphrase');
    for (const i of [0, 1]) {
      const refused = await prepareDocument(doc(i), 'f'.repeat(64), i, key).then(() => undefined, (err: unknown) => err);
      expect(refused, `document ${i}`).to.be.instanceOf(Error);
      expect((refused as Error).message).to.match(/^cannot decrypt private key/);
    }
  });
});
