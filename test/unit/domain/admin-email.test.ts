import { expect } from 'chai';
import { adminEmailOf } from '../../../src/domain/admin-email.js';

describe('adminEmailOf: the address OAI-PMH Identify shows as adminEmail', () => {
  it('takes a bare address, and the address of a name-addr (the usual Learning Registry identity)', () => {
    expect(adminEmailOf('admin@example.org')).to.equal('admin@example.org');
    expect(adminEmailOf('  admin@example.org ')).to.equal('admin@example.org');
    expect(adminEmailOf('Jane Admin <jane@example.org>')).to.equal('jane@example.org');
    expect(adminEmailOf('"Admin, Jane" <jane@mail.example.org> ')).to.equal('jane@mail.example.org');
  });

  it('finds none where OAI-PMH.xsd\'s pattern \\S+@(\\S+\\.)+\\S+ would refuse the value', () => {
    for (const identity of ['', 'Jane Admin', 'jane@localhost', 'Jane <jane at example dot org>', 'Jane Admin jane@example.org', 'Jane <>', 'a b@example.org']) {
      expect(adminEmailOf(identity), identity).to.equal(undefined);
    }
  });
});
