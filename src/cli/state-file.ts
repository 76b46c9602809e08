/** Resume state of publish and harvest: JSON written to a temporary file, fsynced and renamed over the old one. */
import fs from 'node:fs';
import { usageError } from './errors.js';

export function readState<T>(file: string): T | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw usageError(`the state file ${file} is not JSON: remove it to start again`);
  }
}

export function writeState(file: string, value: unknown): void {
  const temporary = `${file}.tmp`;
  const fd = fs.openSync(temporary, 'w');
  try {
    fs.writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}
