/**
 * The embedded store's server-admin credential: generated at first start, kept in DATA_DIR with
 * mode 0600, never logged. Only the node (and an operator with access to DATA_DIR) knows it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config/index.js';

export interface StoreCredentials { user: string; password: string }

export function embeddedCredentials(dataDir: string): StoreCredentials {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A file where the directory should be, no permission: say which setting, not only mkdir's errno.
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code ?? (error as Error).message;
    throw new ConfigError('DATA_DIR', `cannot use ${dataDir} as the data directory: ${why}`);
  }
  // mkdir's mode applies only to a directory it creates: one an operator made is narrowed too.
  fs.chmodSync(dataDir, 0o700);
  const file = path.join(dataDir, 'embedded-admin.json');
  if (fs.existsSync(file)) {
    fs.chmodSync(file, 0o600);
    return JSON.parse(fs.readFileSync(file, 'utf8')) as StoreCredentials;
  }
  const credentials = { user: 'node_admin', password: randomBytes(24).toString('base64url') };
  fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}
