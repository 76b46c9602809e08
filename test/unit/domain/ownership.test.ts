/** Recorded owners (src/domain/ownership.ts): a keyed pseudonym of the account's name, and the plain names of earlier versions. */
import { createHmac, hkdfSync } from 'node:crypto';
import { expect } from 'chai';
import { OWNER_FIELD, OwnerPseudonyms, PSEUDONYM_PREFIX } from '../../../src/domain/ownership.js';
import { ACCOUNT_NAME } from '../../../src/storage/account-repository.js';

const SECRET = 'a0'.repeat(32);
const EMAIL = 'Ada.Lovelace+lr@example.org';
const account = { name: EMAIL.toLowerCase(), submitter: 'Ada' };

describe('owner pseudonyms', () => {
  const owners = new OwnerPseudonyms(SECRET);

  it('is hmac-sha256: and the base64url HMAC-SHA256 of the name, keyed by HKDF-SHA256 of the token secret', () => {
    const key = Buffer.from(hkdfSync('sha256', SECRET, '', 'lr-node owner pseudonym v1', 32));
    const expected = `hmac-sha256:${createHmac('sha256', key).update(account.name).digest('base64url')}`;
    expect(owners.of(account.name)).to.equal(expected);
    expect(expected).to.match(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(new OwnerPseudonyms(SECRET).of(account.name), 'another process of the node').to.equal(expected);
    expect(new OwnerPseudonyms('b1'.repeat(32)).of(account.name), 'another node').not.to.equal(expected);
    // The resumption tokens' HMAC key is the secret itself: the pseudonym's key is another.
    expect(owners.of(account.name)).not.to.include(createHmac('sha256', SECRET).update(account.name).digest('base64url'));
  });

  it('holds nothing of the address, and cannot be taken for an account name', () => {
    const pseudonym = owners.of(account.name);
    for (const part of ['ada', 'lovelace', 'example', '@']) expect(pseudonym.toLowerCase()).not.to.include(part);
    expect(ACCOUNT_NAME.test(PSEUDONYM_PREFIX)).to.equal(false);
    expect(ACCOUNT_NAME.test(pseudonym)).to.equal(false);
  });

  it('an account owns what it published, recorded by its pseudonym or (earlier versions) its name; another does not', () => {
    const other = { name: 'mallory', submitter: 'Ada' };
    for (const recorded of [owners.of(account.name), account.name]) {
      expect(owners.isOwnedBy({ [OWNER_FIELD]: recorded, identity: { submitter: 'Ada' } }, account), recorded).to.equal(true);
      expect(owners.isOwnedBy({ [OWNER_FIELD]: recorded, identity: { submitter: 'Ada' } }, other), recorded).to.equal(false);
    }
    // Another node's pseudonym of the same name is no record of this node's.
    expect(owners.isOwnedBy({ [OWNER_FIELD]: new OwnerPseudonyms('b1'.repeat(32)).of(account.name) }, account)).to.equal(false);
    // Without a recorded owner (arrived by distribution), identity.submitter decides.
    expect(owners.isOwnedBy({ identity: { submitter: 'Ada' } }, other)).to.equal(true);
  });

  it('two records name the same account when equal or one is the other\'s pseudonym', () => {
    const pseudonym = owners.of('alice');
    expect([owners.same('alice', 'alice'), owners.same(pseudonym, pseudonym), owners.same('alice', pseudonym), owners.same(pseudonym, 'alice')]).to.deep.equal([true, true, true, true]);
    expect([owners.same('bob', pseudonym), owners.same(pseudonym, owners.of('bob')), owners.same('alice', 'bob')]).to.deep.equal([false, false, false]);
  });
});
