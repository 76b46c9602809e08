#!/usr/bin/env node
// lr-node's launcher: the built CLI in dist/ (npm run build, which npm start also runs) when it
// exists, else the TypeScript sources through tsx (installed by npm ci), so a fresh clone works.
import fs from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'src', 'cli', 'main.js');
if (fs.existsSync(built) && process.env.LR_NODE_FROM_SOURCE !== '1') {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href);
}
