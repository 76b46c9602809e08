#!/usr/bin/env node
// lr-node's launcher: the built CLI in dist/ (npm run build, which npm start also runs) when it
// exists and was built from the sources as they are, else the TypeScript sources through tsx
// (installed by npm ci), so a fresh clone works. A dist/ older than a source file is what an
// in-place upgrade (`git pull`, `npm ci`, no build) leaves: run as it was, it would be the
// earlier version, silently (an upgrade audit saw the old configuration rules and "unknown
// command" for a new one), so the sources run instead, with a line saying why.
import fs from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newestSource } from './newest-source.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'src', 'cli', 'main.js');

const fromSource = process.env.LR_NODE_FROM_SOURCE === '1';
// tsc writes every output at each build, so the CLI's own output dates the build.
const stale = !fromSource && fs.existsSync(built) && newestSource(path.join(root, 'src')) > fs.statSync(built).mtimeMs;
if (fs.existsSync(built) && !fromSource && !stale) {
  await import(pathToFileURL(built).href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(`lr-node: ${stale ? 'dist/ is older than the sources in src/' : 'dist/ is missing'} and tsx is not installed: run npm run build\n`);
    process.exit(1);
  }
  if (stale) process.stderr.write('lr-node: dist/ is older than the sources in src/ (run npm run build): running the sources\n');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href);
}
