import { expect } from 'chai';
import { scrubCredentials } from '../../../src/net/url-credentials.js';

describe('scrubCredentials', () => {
  it('removes user and password from every URL in a text', () => {
    expect(scrubCredentials('replicate http://ops:secret@a.example/db to "https://u:p@b.example:5984/x" failed'))
      .to.equal('replicate http://a.example/db to "https://b.example:5984/x" failed');
  });
  it('removes a password holding "@" whole (the URL parser reads it as part of the password)', () => {
    const url = 'http://ops:p@ss@peer.example/incoming';
    expect(new URL(url).password).to.equal('p%40ss');
    expect(scrubCredentials(`GET ${url} answered 401`)).to.equal('GET http://peer.example/incoming answered 401');
  });
  it('leaves a text without credentials as it is, an address in a path included', () => {
    const text = 'GET http://peer.example/a/b@c answered 404; mailto admin@example.org';
    expect(scrubCredentials(text)).to.equal(text);
  });
});
