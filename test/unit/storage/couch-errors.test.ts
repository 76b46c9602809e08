/** The one mapping of CouchDB (nano) errors to the node's errors (src/storage/couch.ts), without a store. */
import { expect } from 'chai';
import { inStore, isConflict, isNotFound, mapCouchError, redactedUrl, credentialedUrl } from '../../../src/storage/couch.js';
import { AppError } from '../../../src/errors/app-error.js';

const nanoError = (statusCode: number | undefined, error = 'x'): Error => Object.assign(new Error(`couch said ${error}`), statusCode === undefined ? { code: 'ECONNREFUSED' } : { statusCode, error, reason: 'r' });

describe('CouchDB errors → AppError (src/storage/couch.ts)', () => {
  const cases: [string, Error, number, string, RegExp][] = [
    ['no answer (connection refused)', nanoError(undefined), 503, 'store_unavailable', /^CouchDB is unreachable \(read x\)$/],
    ['401: the node\'s credentials refused', nanoError(401, 'unauthorized'), 503, 'store_credentials_refused', /refused the node's credentials/],
    ['403: the user may not (not a server admin)', nanoError(403, 'forbidden'), 503, 'store_credentials_refused', /needs a server admin/],
    ['404', nanoError(404, 'not_found'), 404, 'not_found', /read x: not found/],
    ['409', nanoError(409, 'conflict'), 409, 'conflict', /update conflict/],
    ['413', nanoError(413, 'too_large'), 413, 'payload_too_large', /too large for the store/],
    ['500', nanoError(500, 'os_process_error'), 502, 'store_error', /CouchDB error \(read x\): os_process_error/],
  ];
  for (const [what, error, status, code, message] of cases) {
    it(`${what} → ${status} ${code}`, () => {
      const mapped = mapCouchError(error, 'read x');
      expect(mapped).to.be.instanceOf(AppError);
      expect(mapped).to.include({ status, code, expose: true });
      expect(mapped.message).to.match(message);
      expect(mapped.cause).to.equal(error);
    });
  }

  it('an AppError passes through unchanged', () => {
    const original = new AppError(400, 'invalid_request', 'no');
    expect(mapCouchError(original, 'read x')).to.equal(original);
  });

  it('inStore maps a failure once, and passes a result through', async () => {
    expect(await inStore('read x', async () => 7)).to.equal(7);
    let caught: unknown;
    try { await inStore('read x', () => Promise.reject(nanoError(undefined))); } catch (error) { caught = error; }
    expect(caught).to.be.instanceOf(AppError).and.include({ status: 503, code: 'store_unavailable' });
  });

  it('tells not-found and conflict apart', () => {
    expect(isNotFound(nanoError(404))).to.equal(true);
    expect(isNotFound(nanoError(409))).to.equal(false);
    expect(isConflict(nanoError(409))).to.equal(true);
    expect(isConflict(undefined)).to.equal(false);
  });

  it('credentials go into the connection URL and never into the logged one', () => {
    const url = credentialedUrl({ url: 'http://old:creds@couch.example.org:5984/', user: 'admin', password: 'p@ss word' });
    expect(url).to.equal('http://admin:p%40ss%20word@couch.example.org:5984');
    expect(redactedUrl(url)).to.equal('http://couch.example.org:5984');
  });
});
