/**
 * npm run bench -- NAME [--couchdb URL] [--docs N] [--page N]: runs bench/NAME.ts. Each benchmark
 * compares the node with the raw CouchDB operation on the same store in the same run (the
 * embedded store, or with --couchdb the CouchDB 3.x at that admin URL) and ends with one line:
 *   NAME: <ours> <unit>, raw <raw> <unit>, ratio <ours/raw>
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EXIT, exitCodeOf } from '../src/errors/exit-codes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const name = process.argv[2];
const available = fs.readdirSync(here).filter((f) => f.endsWith('.ts') && !['run.ts', 'support.ts', 'generate.ts'].includes(f)).map((f) => f.slice(0, -3));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- NAME [--couchdb URL] [--docs N] [--page N]   (NAME: one of ${available.join(', ')})\n`);
  process.exit(EXIT.usage);
}
try {
  await import(pathToFileURL(path.join(here, `${name}.ts`)).href);
} catch (error) {
  // Bad options and unreachable stores end in one readable line, not a stack trace.
  const { scrubCredentials } = await import('../src/net/url-credentials.js');
  process.stderr.write(`bench ${name} failed: ${scrubCredentials(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(exitCodeOf(error));
}
