/** The error vocabulary (src/errors/app-error.ts) and the exit-code table (src/errors/exit-codes.ts), without a node. */
import { expect } from 'chai';
import { AppError, DEFAULT_RETRY_AFTER_SECONDS, SPEC_ERROR_STATUS, badRequest, notBootstrapped, retryAfterOf, specRefusal, storeCredentialsRefused, storeUnavailable } from '../../../src/errors/app-error.js';
import { EXIT, exitCodeOf } from '../../../src/errors/exit-codes.js';
import { CliError, networkError, refusedError, usageError } from '../../../src/cli/errors.js';
import { ConfigError } from '../../../src/config/settings.js';
import { SwordError, describeSwordError } from '../../../src/services/sword/sword-error.js';

describe('the error vocabulary', () => {
  it('a client error is exposed, a server error is not, a 503 is', () => {
    expect(badRequest('x')).to.include({ status: 400, code: 'invalid_request', expose: true });
    expect(new AppError(500, 'internal_error', 'x')).to.include({ expose: false });
    expect(storeUnavailable('down')).to.include({ status: 503, code: 'store_unavailable', expose: true });
  });

  it('the spec\'s "200 / 500" services refuse with 500 but keep a code that says what is wrong (never a 500 bad_request)', () => {
    expect(SPEC_ERROR_STATUS).to.equal(500);
    expect(specRefusal('invalid_request', 'no')).to.include({ status: 500, code: 'invalid_request', expose: true });
    expect(specRefusal('payload_too_large', 'big')).to.include({ status: 500, code: 'payload_too_large', expose: true });
  });

  it('not bootstrapped is the store-unavailable outcome, naming what is missing', () => {
    const error = notBootstrapped('the node description');
    expect(error).to.include({ status: 503, code: 'store_unavailable', expose: true });
    expect(error.message).to.equal('the node is not bootstrapped: the node description is missing from the store');
  });

  it('Retry-After: the error\'s own, else the default', () => {
    expect(retryAfterOf(storeUnavailable('indexing', { retryAfter: 2 }))).to.equal(2);
    expect(retryAfterOf(storeUnavailable('down'))).to.equal(DEFAULT_RETRY_AFTER_SECONDS);
    expect(retryAfterOf(new Error('x'))).to.equal(DEFAULT_RETRY_AFTER_SECONDS);
  });
});

describe('one vocabulary, each protocol\'s form: SWORD', () => {
  const ERROR = 'http://purl.org/net/sword/error/';
  it('a SWORD refusal is an AppError with a neutral code', () => {
    expect(new SwordError('MaxUploadSizeExceeded', 'big')).to.be.instanceOf(AppError).and.include({ status: 413, code: 'payload_too_large', expose: true });
    expect(new SwordError('TargetOwnerUnknown', 'who')).to.include({ status: 401, code: 'unauthorized' });
  });

  it('another layer\'s error is mapped by its code, not its status: the spec\'s 500 refusal is a client error in SWORD', () => {
    expect(describeSwordError(specRefusal('invalid_request', 'no'))).to.deep.equal({ status: 400, uri: `${ERROR}ErrorBadRequest`, summary: 'no', expose: true });
    expect(describeSwordError(specRefusal('payload_too_large', 'big'))).to.include({ status: 413, uri: `${ERROR}MaxUploadSizeExceeded` });
    expect(describeSwordError(notBootstrapped('the node description'))).to.include({ status: 503, uri: 'urn:x-learning-registry:sword:error:ServiceUnavailable', expose: true });
    expect(describeSwordError(new Error('secret detail'))).to.deep.equal({ status: 500, uri: 'urn:x-learning-registry:sword:error:InternalError', summary: 'internal error', expose: false });
  });
});

describe('the exit-code table', () => {
  it('has one distinct code per kind of failure', () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).to.equal(codes.length);
    expect(EXIT).to.include({ ok: 0, failure: 1, usage: 2, unreachable: 3, refused: 4, portInUse: 5, tryLater: 75, interrupted: 130 });
  });

  it('maps the errors that end a process', () => {
    expect(exitCodeOf(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }))).to.equal(EXIT.portInUse);
    expect(exitCodeOf(storeUnavailable('CouchDB did not answer within 30 s'))).to.equal(EXIT.unreachable);
    expect(exitCodeOf(new ConfigError('PORT', 'must be a port number'))).to.equal(EXIT.failure);
    expect(exitCodeOf(new Error('CouchDB refused the node\'s credentials'))).to.equal(EXIT.failure);
    // Met at start (a user that is not a server admin, or a wrong password): a setting to fix, not an unreachable store.
    expect(exitCodeOf(storeCredentialsRefused('CouchDB does not let the node\'s user do this'))).to.equal(EXIT.failure);
    expect(exitCodeOf(usageError('x'))).to.equal(EXIT.usage);
    expect(exitCodeOf(networkError('x'))).to.equal(EXIT.unreachable);
    expect(exitCodeOf(refusedError('x'))).to.equal(EXIT.refused);
    expect(exitCodeOf(new CliError('x', EXIT.interrupted))).to.equal(EXIT.interrupted);
    // An exit code outside the table (a crashed child's) is a plain failure.
    expect(exitCodeOf(Object.assign(new Error('x'), { exitCode: 77 }))).to.equal(EXIT.failure);
    expect(exitCodeOf(Object.assign(new Error('x'), { exitCode: EXIT.portInUse }))).to.equal(EXIT.portInUse);
    expect(exitCodeOf('a string')).to.equal(EXIT.failure);
  });
});
