/**
 * The embedded store's server-admin credential: generated at first start, kept in DATA_DIR with
 * mode 0600, never logged. Only the node (and an operator with access to DATA_DIR) knows it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface StoreCredentials { user: string; password: string }

export function embeddedCredentials(dataDir: string): StoreCredentials {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
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
