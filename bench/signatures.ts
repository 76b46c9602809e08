/**
 * bench/signatures: LR-PGP.1.0 signing and verification per document, in one thread, by key type
 * (issue 19): Ed25519 (EdDSA legacy, the node's key since it was first generated), RSA 2048 and
 * 3072, each key parsed once (as the signature workers keep it), against Node's own Ed25519
 * signature of the same canonical hash (no OpenPGP packets: the floor of the cryptography).
 *   --docs N (BENCH_DOCS, default 300) documents per measurement
 * No store is involved; the closing line compares Ed25519 signing through OpenPGP with the floor.
 */
import { createHash, generateKeyPairSync, sign as rawSign } from 'node:crypto';
import * as openpgp from 'openpgp';
import { benchOptions, report, round, secondsSince } from './support.js';
import { generateDocument, loadTemplates } from './generate.js';
import { canonicalHash } from '../src/domain/signature/canonical-hash.js';
import { readSigningKey, signEnvelopeWith } from '../src/domain/signature/lr-pgp-sign.js';
import { readPublicKeys, verifyEnvelopeSignatureWith } from '../src/domain/signature/lr-pgp-verify.js';
import { generateNodeKeyPair, type NodeKeyType } from '../src/domain/signature/node-key-pair.js';

const { docs: count } = benchOptions({ docs: 300, docsEnv: 'BENCH_DOCS' });
const templates = loadTemplates();
const docs = Array.from({ length: count }, (_, i) => generateDocument(i, templates, true));
const locations = ['https://node.example.org/pubkey'];

async function measure(type: NodeKeyType, rsaBits?: number): Promise<number> {
  const pair = await generateNodeKeyPair(`bench ${type}`, 'bench@example.org', { type, ...(rsaBits ? { rsaBits } : {}) });
  const key = await readSigningKey(pair.privateKeyArmored, undefined);
  const publicKeys = await readPublicKeys([pair.publicKeyArmored]);
  let started = process.hrtime.bigint();
  const signed = [];
  for (const doc of docs) signed.push(await signEnvelopeWith(doc, key, locations));
  const signing = count / secondsSince(started);
  started = process.hrtime.bigint();
  for (const doc of signed) {
    const result = await verifyEnvelopeSignatureWith(doc, async () => publicKeys);
    if (!result.ok) throw new Error(`verification failed: ${result.reason}`);
  }
  const verifying = count / secondsSince(started);
  const name = type === 'rsa' ? `RSA ${rsaBits ?? 3072}` : 'Ed25519';
  process.stdout.write(`${name}: sign ${round(signing)} docs/s (${round(1000 / signing, 2)} ms/doc), verify ${round(verifying)} docs/s (${round(1000 / verifying, 2)} ms/doc)\n`);
  return signing;
}

process.stdout.write(`openpgp ${openpgp.config.versionString}, ${count} documents per measurement, one thread\n`);
const ed25519 = await measure('ed25519');
await measure('rsa', 2048);
await measure('rsa', 3072);
const { privateKey } = generateKeyPairSync('ed25519');
const started = process.hrtime.bigint();
for (const doc of docs) rawSign(null, createHash('sha256').update(canonicalHash(doc)).digest(), privateKey);
const floor = count / secondsSince(started);
process.stdout.write(`node:crypto Ed25519 over the canonical hash (no OpenPGP): ${round(floor)} docs/s\n`);
report('signatures', ed25519, floor, 'docs/s');
