/**
 * The version of lr-node running (package.json's), for `lr-node --version` and the first line of
 * the start-up log: an operator who upgraded in place can tell which code a process runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// src/config/ from the sources, dist/src/config/ once built: package.json is at the project root either way.
const PACKAGE_JSON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), import.meta.url.endsWith('.ts') ? '../..' : '../../..', 'package.json');

export function softwareVersion(): string {
  const { version } = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
