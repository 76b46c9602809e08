/** How distribution words a peer's answer it cannot use (peer-fetch.ts answeredWith): the request, its status and media type, never credentials. */
import { expect } from 'chai';
import { answeredWith } from '../../../src/services/distribute/peer-fetch.js';

describe('answeredWith', () => {
  it('names the request, the status and the media type without its parameters', () => {
    expect(answeredWith('http://host:8080/destination', { status: 404, contentType: 'text/html; charset=utf-8' }, 'not it'))
      .to.equal('GET http://host:8080/destination answered HTTP 404 (text/html): not it');
    expect(answeredWith('http://host/destination', { status: 200, contentType: null }, 'not it')).to.equal('GET http://host/destination answered HTTP 200 (no content type): not it');
    expect(answeredWith('http://host/destination', { status: 301 }, 'it redirects')).to.equal('GET http://host/destination answered HTTP 301: it redirects');
  });

  it('keeps credentials out, and clips a media type a peer made long', () => {
    const reason = answeredWith('http://ops:s3cret@host/incoming', { status: 500, contentType: `x/${'y'.repeat(500)}` }, 'not it');
    expect(reason).to.not.contain('s3cret');
    expect(reason).to.match(/^GET http:\/\/host\/incoming answered HTTP 500 \(x\/y+… \(502 characters\)\): not it$/);
  });
});
