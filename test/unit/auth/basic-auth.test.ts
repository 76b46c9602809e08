// The Authorization header of HTTP Basic (RFC 7617), as src/services/auth/authenticator.ts reads it
// for every protected service; the node's password check comes after and is not part of this.
import { expect } from 'chai';
import { parseBasicAuth } from '../../../src/services/auth/authenticator.js';

const basic = (userPass: string, scheme = 'Basic'): string => `${scheme} ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('HTTP Basic credentials (RFC 7617)', () => {
  it('reads the user-id and the password: the first colon splits them, the password may hold colons, UTF-8 both', () => {
    const cases: [header: string, user: string, password: string][] = [
      [basic('publisher:correct horse battery'), 'publisher', 'correct horse battery'],
      [basic('a:b:c:'), 'a', 'b:c:'],
      [basic('a:'), 'a', ''],
      [basic('jürgen:pässwörd ✓'), 'jürgen', 'pässwörd ✓'],
      [basic('user@example.org:p"w\'<>'), 'user@example.org', 'p"w\'<>'],
      ['Basic dXNlcjpwYXNz', 'user', 'pass'],
    ];
    for (const [header, user, password] of cases) expect(parseBasicAuth(header), header).to.deep.equal({ user, password });
  });

  it('takes the scheme name in any case (RFC 9110 §11.1) and spaces around the token', () => {
    for (const scheme of ['basic', 'BASIC', 'bAsIc']) expect(parseBasicAuth(basic('u:p', scheme)), scheme).to.deep.equal({ user: 'u', password: 'p' });
    expect(parseBasicAuth(`Basic   ${Buffer.from('u:p').toString('base64')}  `)).to.deep.equal({ user: 'u', password: 'p' });
  });

  it('gives no credentials for an absent header, another scheme, no token, no colon or an empty user-id', () => {
    for (const header of [undefined, '', 'Basic', 'Basic ', 'Bearer dXNlcjpwYXNz', 'Digest username="u"', 'BasicdXNlcjpwYXNz',
      basic('no-colon'), basic(':password-only'), basic(''), 'Basic dXNlcjpwYXNz extra', 'Basic dXNlcjp!YXNz']) {
      expect(parseBasicAuth(header), String(header)).to.equal(undefined);
    }
  });
});
