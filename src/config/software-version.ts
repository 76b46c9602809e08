/**
 * The version of lr-node running (package.json's), for `lr-node --version` and the first line of
 * the start-up log: an operator who upgraded in place can tell which code a process runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root.js';

const PACKAGE_JSON = path.join(PROJECT_ROOT, 'package.json');

export function softwareVersion(): string {
  const { version } = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
