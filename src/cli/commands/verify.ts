/**
 * lr-node verify FILE...: the LR-PGP.1.0 signature of each document (spec "Digital signatures"),
 * with the public keys of --key files, else fetched from the document's key_location through the
 * SSRF-guarded fetcher (loopback and private addresses only with --allow-private).
 */
import fs from 'node:fs';
import { verifyEnvelopeSignature } from '../../domain/signature/lr-pgp-verify.js';
import { createSafeFetcher } from '../../net/safe-fetch.js';
import { ARMORED_KEY } from '../../services/intake/key-resolver.js';
import { readDocumentFile, unwrapRecord } from '../document-files.js';
import { usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';

export interface VerifyOptions { files: string[]; keys: string[]; allowPrivate: boolean; json: boolean }

const MAX_LOCATIONS = 3;

export async function verify(options: VerifyOptions): Promise<ExitCode> {
  const givenKeys = options.keys.map((file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw usageError(`cannot read the key ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  });
  const fetcher = createSafeFetcher({ allowPrivate: options.allowPrivate, timeoutMs: 10000, maxBytes: 1024 * 1024 });
  const fetched = new Map<string, Promise<{ keys: string[]; failure?: string }>>();
  const keysAt = (url: string): Promise<{ keys: string[]; failure?: string }> => {
    if (!fetched.has(url)) {
      fetched.set(url, fetcher.fetchText(url).then((r) => {
        if (!r.ok) return { keys: [], failure: `${url}: ${r.reason}` };
        const keys = r.text.match(ARMORED_KEY) ?? [];
        return keys.length > 0 ? { keys } : { keys, failure: `${url}: no armored public key found` };
      }));
    }
    return fetched.get(url)!;
  };
  let failed = 0;
  for (const file of options.files.map(readDocumentFile)) {
    for (const [index, value] of file.documents.entries()) {
      const doc = unwrapRecord(value) as Record<string, unknown> | null;
      const label = doc && typeof doc.doc_ID === 'string' ? doc.doc_ID : `${file.path}#${index}`;
      let keys = givenKeys;
      const failures: string[] = [];
      if (keys.length === 0) {
        const signature = doc?.digital_signature as { key_location?: unknown } | undefined;
        const locations = Array.isArray(signature?.key_location) ? signature.key_location.filter((l): l is string => typeof l === 'string').slice(0, MAX_LOCATIONS) : [];
        const found = await Promise.all(locations.map(keysAt));
        keys = found.flatMap((f) => f.keys);
        failures.push(...found.flatMap((f) => (f.failure ? [f.failure] : [])));
      }
      const checked = await verifyEnvelopeSignature(doc, keys);
      // Without a key, say why none was had from key_location.
      const result = !checked.ok && checked.code === 'no-usable-key' && failures.length > 0 ? { ...checked, reason: `no public key from key_location: ${failures.join('; ')}` } : checked;
      if (!result.ok) failed += 1;
      const line = result.ok
        ? (options.json ? JSON.stringify({ doc_ID: label, OK: true, fingerprint: result.fingerprint }) : `ok\t${label}\t${result.fingerprint}`)
        : (options.json ? JSON.stringify({ doc_ID: label, OK: false, error: result.reason }) : `FAIL\t${label}\t${result.reason}`);
      process.stdout.write(`${line}\n`);
    }
  }
  return failed > 0 ? EXIT.failure : EXIT.ok;
}
