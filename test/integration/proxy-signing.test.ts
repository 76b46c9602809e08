/**
 * Proxy signing and signature verification in the worker pool (issue 19): what the node signs
 * verifies with GnuPG (Debian's gpg, an independent OpenPGP implementation) as with ours, and a
 * batch of documents signed by one key costs one key fetch.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, tempDir, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { requireProgram } from '../support/programs.js';
import { canonicalHash } from '../../src/domain/signature/canonical-hash.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';
import { verifyEnvelopeSignature } from '../../src/domain/signature/lr-pgp-verify.js';

const run = promisify(execFile);
const SIGNER = { authorization: basicAuth('signer', 'signer-password-1') };
type Result = { doc_ID: string; OK: boolean; error?: string };
const results = (body: Record<string, unknown>): Result[] => body.document_results as Result[];

/** gpg's verdict on a clear-signed block with only `armoredKey` in a fresh keyring, and the text it signs. */
async function gpgVerify(armoredKey: string, signature: string): Promise<{ ok: boolean; text: string; status: string }> {
  const home = tempDir('lr-gpg-');
  fs.chmodSync(home, 0o700);
  const keyFile = path.join(home, 'node.asc');
  const sigFile = path.join(home, 'doc.asc');
  fs.writeFileSync(keyFile, armoredKey);
  fs.writeFileSync(sigFile, signature);
  const gpg = (args: string[]) => run('gpg', ['--homedir', home, '--batch', '--no-tty', ...args]);
  try {
    await gpg(['--import', keyFile]);
    const { stdout, stderr } = await gpg(['--status-fd', '2', '--decrypt', sigFile]);
    return { ok: /\[GNUPG:\] GOODSIG /.test(stderr) && /\[GNUPG:\] VALIDSIG /.test(stderr), text: stdout.trim(), status: stderr };
  } catch (error) {
    return { ok: false, text: '', status: String((error as { stderr?: string }).stderr ?? error) };
  } finally {
    await run('gpgconf', ['--homedir', home, '--kill', 'all']).catch(() => undefined);
    fs.rmSync(home, { recursive: true, force: true });
  }
}

// Both ways the node runs signature jobs (SIGNATURE_WORKERS): worker threads, and its event loop
// (the default on a machine of two cores).
for (const workers of ['2', '0']) describe(`proxy signing and verification, SIGNATURE_WORKERS=${workers} (issue 19)`, function () {
  this.timeout(120000);
  let node: TestNode;
  const stored = async (id: string): Promise<Doc> => node.couch.use(node.names.resourceData).get(id) as unknown as Promise<Doc>;

  before(async () => {
    requireProgram('gpg');
    node = await startTestNode({ nodeConfig: { policy: { verify_signatures: true, allow_private_fetch: true } }, env: { SIGNATURE_WORKERS: workers } });
    expect(node.deps.signatures.size).to.equal(Number(workers));
    await addAccount(node, 'signer', 'signer-password-1');
  });
  after(async () => { await node?.stop(); });

  it('signs each document of a batch with the node key: the signature verifies with gpg and with ours', async () => {
    const docs = nsdlDocs(20).map((doc, i) => ({ ...doc, doc_ID: `proxy-signed-${i}`, identity: { submitter: 'signer', submitter_type: 'agent' } }));
    const published = await postJson(`${node.url}/publish`, { documents: docs }, SIGNER);
    expect(results(published.body).map((r) => r.OK)).to.deep.equal(docs.map(() => true));
    expect(node.deps.signatures.runningWorkers, 'signature threads started').to.equal(Number(workers));
    const publicKey = await (await fetch(`${node.url}/pubkey`)).text();
    const fingerprint = (await node.deps.nodes.nodeKeys())?.fingerprint.toLowerCase();
    expect(fingerprint).to.match(/^[0-9a-f]{40}$/);
    for (const [i, id] of [0, 7, 19].map((n) => [n, `proxy-signed-${n}`] as const)) {
      const doc = await stored(id);
      const block = doc.digital_signature as { signature: string; key_location: string[]; signing_method: string };
      expect(block.key_location, id).to.deep.equal([`${node.publicUrl}/pubkey`]);
      expect(block.signing_method).to.equal('LR-PGP.1.0');
      expect(await verifyEnvelopeSignature(doc, [publicKey]), id).to.include({ ok: true, fingerprint });
      const gpg = await gpgVerify(publicKey, block.signature);
      expect(gpg.ok, gpg.status).to.equal(true);
      expect(gpg.text, `document ${i}`).to.equal(canonicalHash(doc));
    }
  });

  it('a changed document fails with gpg too (the signature covers the canonical hash)', async () => {
    const doc = await stored('proxy-signed-3');
    const publicKey = await (await fetch(`${node.url}/pubkey`)).text();
    const changed = { ...doc, keys: ['changed'] };
    expect(await verifyEnvelopeSignature(changed, [publicKey])).to.include({ ok: false, code: 'hash-mismatch' });
    const gpg = await gpgVerify(publicKey, (doc.digital_signature as { signature: string }).signature);
    expect(gpg.ok).to.equal(true);
    expect(gpg.text).to.not.equal(canonicalHash(changed));
  });

  it('verifies a batch signed by one outside key with one fetch of that key, and refuses the document signed by another', async () => {
    const signer = await generateNodeKeyPair('Batch Signer', 'batch@example.org');
    const other = await generateNodeKeyPair('Someone Else', 'else@example.org');
    let fetches = 0;
    const server = http.createServer((_req, res) => { fetches += 1; res.writeHead(200, { 'content-type': 'text/plain' }); res.end(signer.publicKeyArmored); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const keyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/key`;
      const docs = await Promise.all(nsdlDocs(30).map((doc, i) => signEnvelope({ ...doc, doc_ID: `outside-signed-${i}` }, (i === 29 ? other : signer).privateKeyArmored, undefined, [keyUrl])));
      const published = await postJson(`${node.url}/publish`, { documents: docs }, SIGNER);
      const outcome = results(published.body);
      expect(outcome.slice(0, 29).every((r) => r.OK), JSON.stringify(outcome.find((r) => !r.OK))).to.equal(true);
      expect(outcome[29]).to.include({ OK: false }).and.to.have.property('error').that.match(/^rejected signature: no valid signature by the given keys/);
      expect(fetches).to.equal(1);
    } finally {
      server.close();
    }
  });
});
