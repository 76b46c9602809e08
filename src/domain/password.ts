/**
 * Publishing passwords: scrypt (a slow, memory-hard KDF; node:crypto), with a random salt per
 * password and the parameters stored beside the hash so they can be raised later.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface PasswordHash { kdf: 'scrypt'; N: number; r: number; p: number; salt: string; hash: string }

/**
 * N=2^15, r=8, p=3: 32 MiB, one of OWASP's equivalent scrypt settings (Password Storage Cheat
 * Sheet: 2^17/8/1, 2^16/8/2, 2^15/8/3, ...); p=1 at N=2^15 was below them. Hashes made earlier
 * keep the parameters stored beside them and still verify.
 */
const DEFAULT_PARAMS = { N: 32768, r: 8, p: 3 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULT_PARAMS);
  return { kdf: 'scrypt', ...DEFAULT_PARAMS, salt: salt.toString('base64'), hash: key.toString('base64') };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  if (stored.kdf !== 'scrypt') return false;
  const expected = Buffer.from(stored.hash, 'base64');
  const key = await derive(password, Buffer.from(stored.salt, 'base64'), stored);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
