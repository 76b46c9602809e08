/** OAuth 1.0 signatures (src/domain/oauth1-signature.ts) against RFC 5849's examples and oauthlib's answers. */
import { expect } from 'chai';
import { baseStringUri, bodyHashMatches, hmacSignature, parseOAuthHeader, percentEncode, signatureBaseString, type OAuthHeader } from '../../../src/domain/oauth1-signature.js';

function signatureOf(header: string, method: string, url: string, consumerSecret: string, tokenSecret: string): { given: string; computed: string } {
  const parsed = parseOAuthHeader(header) as OAuthHeader;
  const target = new URL(url);
  const params: [string, string][] = [...target.searchParams, ...parsed.signed];
  return { given: parsed.signature, computed: hmacSignature(parsed.method, signatureBaseString(method, baseStringUri(target), params), consumerSecret, tokenSecret) };
}

describe('OAuth 1.0 signatures (RFC 5849)', () => {
  it('build §3.4.1.1\'s signature base string', () => {
    const params: [string, string][] = [
      ['b5', '=%3D'], ['a3', 'a'], ['c@', ''], ['a2', 'r b'],
      ['oauth_consumer_key', '9djdj82h48djs9d2'], ['oauth_token', 'kkk9d7dh3k39sjv7'], ['oauth_signature_method', 'HMAC-SHA1'], ['oauth_timestamp', '137131201'], ['oauth_nonce', '7d8f3e4a'],
      ['c2', ''], ['a3', '2 q'],
    ];
    expect(signatureBaseString('post', baseStringUri(new URL('http://EXAMPLE.COM:80/request?b5=x')), params)).to.equal(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
    expect(baseStringUri(new URL('https://www.example.net:8080/?q=1'))).to.equal('https://www.example.net:8080/');
  });

  it('verify §1.2\'s request and what oauthlib (HMAC-SHA1, HMAC-SHA256, a body hash) signs', () => {
    const photos = 'http://photos.example.net/photos?file=vacation.jpg&size=original';
    const rfc = 'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131202", oauth_nonce="chapoH", oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"';
    const sha1 = 'OAuth oauth_nonce="chapoH", oauth_timestamp="137131202", oauth_version="1.0", oauth_signature_method="HMAC-SHA1", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature="1IAE9RzK%2BDqSqVTdQ%2F0zWANXVzs%3D"';
    const sha256 = 'OAuth oauth_nonce="chapoH", oauth_timestamp="137131202", oauth_version="1.0", oauth_signature_method="HMAC-SHA256", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature="rAAvYu1BQL0v7E7CJl81nKGKZdQr4XFo7E7vbGJxPz4%3D"';
    for (const header of [rfc, sha1, sha256]) {
      const { given, computed } = signatureOf(header, 'GET', photos, 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00');
      expect(computed).to.equal(given);
      expect(signatureOf(header, 'GET', photos, 'kd94hf93k423kf44', 'wrong').computed).to.not.equal(given);
    }
    const posted = 'OAuth oauth_nonce="n1", oauth_timestamp="1700000000", oauth_version="1.0", oauth_signature_method="HMAC-SHA1", oauth_consumer_key="alice", oauth_token="tok", oauth_body_hash="ungUcYpGMf4ndgyZF77Evbjn1pw%3D", oauth_signature="kC4AnnKq8HCqqhZW1F5%2Fjvm4RMQ%3D"';
    const { given, computed } = signatureOf(posted, 'POST', 'http://127.0.0.1:8080/publish', 'cs', 'ts');
    expect(computed).to.equal(given);
    const parsed = parseOAuthHeader(posted) as OAuthHeader;
    expect(bodyHashMatches(Buffer.from('{"documents":[]}'), parsed.bodyHash as string, parsed.method)).to.equal(true);
    expect(bodyHashMatches(Buffer.from('{"documents":[1]}'), parsed.bodyHash as string, parsed.method)).to.equal(false);
  });

  it('percent-encode as RFC 3986 (unreserved characters only)', () => {
    expect(percentEncode("a b!*'()~._-é")).to.equal('a%20b%21%2A%27%28%29~._-%C3%A9');
  });

  it('refuse headers that are not the OAuth scheme\'s, naming what is wrong', () => {
    expect(parseOAuthHeader('Basic abc')).to.equal(undefined);
    expect(parseOAuthHeader(undefined)).to.equal(undefined);
    const problem = (header: string): string => (parseOAuthHeader(header) as { problem: string }).problem;
    const base = 'oauth_consumer_key="a", oauth_token="t", oauth_timestamp="1", oauth_nonce="n", oauth_signature="s"';
    expect(problem(`OAuth ${base}`)).to.match(/lacks oauth_signature_method/);
    expect(problem(`OAuth ${base}, oauth_signature_method="PLAINTEXT"`)).to.match(/HMAC-SHA1 or HMAC-SHA256/);
    expect(problem(`OAuth ${base}, oauth_signature_method="HMAC-SHA1", oauth_version="2.0"`)).to.match(/oauth_version must be 1.0/);
    expect(problem(`OAuth ${base}, oauth_signature_method="HMAC-SHA1", oauth_nonce="m"`)).to.match(/given twice/);
    expect(problem('OAuth oauth_consumer_key=a')).to.match(/name="value" pairs/);
    expect(problem(`OAuth ${base.replace('"1"', '"soon"')}, oauth_signature_method="HMAC-SHA1"`)).to.match(/seconds since 1970/);
    expect(problem(`OAuth ${base.replace('"n"', '"%E0%A4%A"')}, oauth_signature_method="HMAC-SHA1"`)).to.match(/percent-encoded/);
  });
});
