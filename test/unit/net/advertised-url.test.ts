import { expect } from 'chai';
import { advertisedUrl } from '../../../src/net/advertised-url.js';

describe('the URL the node advertises', () => {
  it('is PUBLIC_URL when set, whatever HOST is', () => {
    expect(advertisedUrl('0.0.0.0', 8080, 'https://lr.example.org')).to.deep.equal({ publicUrl: 'https://lr.example.org' });
  });
  it('is the bound address without PUBLIC_URL, in brackets for IPv6', () => {
    expect(advertisedUrl('127.0.0.1', 8080, undefined)).to.deep.equal({ publicUrl: 'http://127.0.0.1:8080' });
    expect(advertisedUrl('::1', 8080, undefined)).to.deep.equal({ publicUrl: 'http://[::1]:8080' });
    expect(advertisedUrl('lr.example.org', 80, undefined)).to.deep.equal({ publicUrl: 'http://lr.example.org:80' });
  });
  it('is loopback for an unspecified address, with a warning that PUBLIC_URL is needed', () => {
    for (const [host, url] of [['0.0.0.0', 'http://127.0.0.1:8080'], ['::', 'http://[::1]:8080']]) {
      const advertised = advertisedUrl(host as string, 8080, undefined);
      expect(advertised.publicUrl).to.equal(url);
      expect(advertised.warning).to.match(/no PUBLIC_URL is set/).and.match(/set PUBLIC_URL/);
    }
  });
});
