/** Publishing passwords (src/domain/password.ts): scrypt with a random salt, parameters kept beside the hash. */
import { expect } from 'chai';
import { hashPassword, verifyPassword } from '../../../src/domain/password.js';

describe('password hashes', () => {
  it('verify the password they were made from, and no other', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).to.include({ kdf: 'scrypt' });
    expect(await verifyPassword('correct horse battery', stored)).to.equal(true);
    expect(await verifyPassword('correct horse batterY', stored)).to.equal(false);
    expect(await verifyPassword('', stored)).to.equal(false);
  });

  it('one password gives two different hashes (a random salt each)', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a.salt).to.not.equal(b.salt);
    expect(a.hash).to.not.equal(b.hash);
  });

  it('a password typed composed or decomposed (NFC, NFD) is the same password', async () => {
    const composed = 'caf\u00e9-cr\u00e8me-br\u00fbl\u00e9e';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).to.not.equal(composed);
    expect(await verifyPassword(decomposed, await hashPassword(composed))).to.equal(true);
    expect(await verifyPassword(composed, await hashPassword(decomposed))).to.equal(true);
  });
});
