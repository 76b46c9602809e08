/**
 * npm run bench -- NAME: runs bench/NAME.ts. Each benchmark compares the node with the raw
 * CouchDB operation in the same run and ends with one line:
 *   NAME: <ours> <unit>, raw <raw> <unit>, ratio <ours/raw>
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const name = process.argv[2];
const available = fs.readdirSync(here).filter((f) => f.endsWith('.ts') && !['run.ts', 'support.ts', 'generate.ts'].includes(f)).map((f) => f.slice(0, -3));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- NAME   (one of: ${available.join(', ')})\n`);
  process.exit(2);
}
await import(pathToFileURL(path.join(here, `${name}.ts`)).href);
