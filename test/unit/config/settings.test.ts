/** The process settings from the environment (src/config/settings.ts) and the CONFIG file schema (node-config.ts), without a node. */
import os from 'node:os';
import { expect } from 'chai';
import { ConfigError, loadSettings, onLoopback } from '../../../src/config/settings.js';
import { validateNodeConfig } from '../../../src/config/node-config.js';

const failure = (run: () => unknown): ConfigError => {
  try { run(); } catch (error) { if (error instanceof ConfigError) return error; throw error; }
  throw new Error('no ConfigError');
};

describe('settings from the environment', () => {
  it('an empty environment gives the README\'s defaults', () => {
    expect(loadSettings({})).to.include({ port: 8080, host: '127.0.0.1', dataDir: './data', dbPrefix: '', logLevel: 'info', embeddedPort: 0, viewWaitMs: 20000 });
    expect(loadSettings({})).to.include({ couchdbUrl: undefined, publicUrl: undefined, monitoringPort: undefined, oidcIssuer: undefined });
    // The signature workers: one per core beyond the two the event loop and the store keep busy.
    expect(loadSettings({}).signatureWorkers).to.equal(Math.max(0, os.availableParallelism() - 2));
    // Heavy requests at once: two per core.
    expect(loadSettings({}).heavyRequestLimit).to.equal(2 * os.availableParallelism());
  });

  it('an empty value is unset, not an error', () => {
    expect(loadSettings({ PORT: '', COUCHDB_URL: '' })).to.include({ port: 8080, couchdbUrl: undefined });
  });

  it('parses numbers and keeps text as given', () => {
    expect(loadSettings({ PORT: '0', MONITORING_PORT: '9100', VIEW_WAIT_MS: '100', DB_PREFIX: 'wt_a1_', HOST: '0.0.0.0', SIGNATURE_WORKERS: '3' }))
      .to.include({ port: 0, monitoringPort: 9100, viewWaitMs: 100, dbPrefix: 'wt_a1_', host: '0.0.0.0', signatureWorkers: 3 });
    expect(loadSettings({ SIGNATURE_WORKERS: '0' }).signatureWorkers).to.equal(0);
    expect(loadSettings({})).to.include({ incomingRetryMs: 60000, incomingRetryLifetimeMs: 432000000 });
    expect(loadSettings({ INCOMING_RETRY_MS: '200', INCOMING_RETRY_LIFETIME_MS: '8000' })).to.include({ incomingRetryMs: 200, incomingRetryLifetimeMs: 8000 });
    expect(loadSettings({}).compressionLevel).to.equal(1);
    expect(loadSettings({ COMPRESSION_LEVEL: '9' }).compressionLevel).to.equal(9);
    expect(loadSettings({}).corsOrigins).to.deep.equal({ kind: 'off' });
    expect(loadSettings({ CORS_ORIGINS: '*' }).corsOrigins).to.deep.equal({ kind: 'any' });
    expect(loadSettings({ CORS_ORIGINS: 'https://app.example.org, http://127.0.0.1:3000/' }).corsOrigins).to.deep.equal({ kind: 'listed', origins: new Set(['https://app.example.org', 'http://127.0.0.1:3000']) });
    expect(loadSettings({}).trustProxy).to.equal(0);
    expect(loadSettings({ TRUST_PROXY: '2', VIEW_WAIT_MS: '2147483647' })).to.include({ trustProxy: 2, viewWaitMs: 2147483647 });
  });

  const refused: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'abc' }, 'PORT', /must be a port number 0-65535, got "abc"/],
    [{ PORT: '65536' }, 'PORT', /port number/],
    [{ EMBEDDED_COUCH_PORT: '-1' }, 'EMBEDDED_COUCH_PORT', /port number/],
    [{ COUCHDB_URL: 'not a url' }, 'COUCHDB_URL', /./],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /must be one of fatal, error/],
    [{ DB_PREFIX: 'Upper_' }, 'DB_PREFIX', /lower-case letter/],
    [{ VIEW_WAIT_MS: '99' }, 'VIEW_WAIT_MS', /from 100 to 2147483647/],
    // Past the longest Node timer every view read answered 503 at once.
    [{ VIEW_WAIT_MS: '2147483648' }, 'VIEW_WAIT_MS', /from 100 to 2147483647 \(about 24.8 days\), got "2147483648"/],
    [{ PUBLIC_URL: 'https://ops:secret@lr.example.org' }, 'PUBLIC_URL', /must not carry credentials/],
    [{ PUBLIC_URL: 'https://lr.example.org/?x=1' }, 'PUBLIC_URL', /no query or fragment/],
    [{ TRUST_PROXY: '11' }, 'TRUST_PROXY', /from 0 to 10, got "11"/],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY', /from 0 to 10/],
    [{ SIGNATURE_WORKERS: '-1' }, 'SIGNATURE_WORKERS', /must be a whole number 0-64, got "-1"/],
    [{ SIGNATURE_WORKERS: '65' }, 'SIGNATURE_WORKERS', /0-64/],
    [{ SIGNATURE_WORKERS: 'auto' }, 'SIGNATURE_WORKERS', /0-64/],
    [{ INCOMING_RETRY_MS: '50' }, 'INCOMING_RETRY_MS', /at least 100, got "50"/],
    [{ INCOMING_RETRY_LIFETIME_MS: '5d' }, 'INCOMING_RETRY_LIFETIME_MS', /whole number of milliseconds/],
    [{ COMPRESSION_LEVEL: '0' }, 'COMPRESSION_LEVEL', /must be a whole number from 1 to 9, got "0"/],
    [{ COMPRESSION_LEVEL: 'best' }, 'COMPRESSION_LEVEL', /from 1 to 9/],
    [{ CORS_ORIGINS: 'https://app.example.org/page' }, 'CORS_ORIGINS', /not an origin: give only http\(s\):\/\/host\[:port\]/],
    [{ CORS_ORIGINS: 'app.example.org' }, 'CORS_ORIGINS', /app.example.org is not an origin/],
    [{ CORS_ORIGINS: 'ftp://files.example.org' }, 'CORS_ORIGINS', /not an origin/],
    [{ CORS_ORIGINS: 'https://user:pw@app.example.org' }, 'CORS_ORIGINS', /without a path, query or credentials/],
    [{ CORS_ORIGINS: ' , ' }, 'CORS_ORIGINS', /give off, \*, or a comma-separated list of origins/],
    [{ OIDC_ISSUER: 'http://id.example.org', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' }, 'OIDC_ISSUER', /must use https/],
    [{ OIDC_ISSUER: 'https://id.example.org/?q=1', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' }, 'OIDC_ISSUER', /query or fragment/],
    [{ OIDC_ISSUER: 'https://id.example.org' }, 'OIDC_CLIENT_ID', /must be set with OIDC_ISSUER/],
  ];
  for (const [env, setting, message] of refused) {
    it(`${JSON.stringify(env)} is refused naming ${setting}`, () => {
      const error = failure(() => loadSettings(env));
      expect(error.message).to.match(new RegExp(`^configuration error: ${setting}: `)).and.match(message);
    });
  }

  it('plain http is allowed for an issuer on loopback only', () => {
    expect(loadSettings({ OIDC_ISSUER: 'http://127.0.0.1:9000/', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' }).oidcIssuer).to.equal('http://127.0.0.1:9000/');
    expect(onLoopback(new URL('http://localhost/'))).to.equal(true);
    expect(onLoopback(new URL('http://[::1]:8/'))).to.equal(true);
    expect(onLoopback(new URL('http://127.5.6.7/'))).to.equal(true);
    expect(onLoopback(new URL('http://10.0.0.1/'))).to.equal(false);
  });
});

describe('the CONFIG file schema', () => {
  it('fills every default (a public node of the open public community)', () => {
    const config = validateNodeConfig({}, 'CONFIG');
    expect(config.policy).to.include({ deleted_data_policy: 'transient', accept_anonymous: true, accept_unsigned: true, verify_signatures: false, max_document_size: 1024 * 1024 });
    expect(config.services.publish.service_data).to.include({ doc_limit: 1000, msg_size_limit: 10 * 1024 * 1024 });
  });

  it('does not change the object it is given', () => {
    const input = { node: { node_name: 'mine' } };
    validateNodeConfig(input, 'CONFIG');
    expect(input).to.deep.equal({ node: { node_name: 'mine' } });
  });

  it('names the path of a wrong value and of an unknown key', () => {
    expect(failure(() => validateNodeConfig({ policy: { deleted_data_policy: 'maybe' } }, 'CONFIG x.json ')).message)
      .to.contain('/policy/deleted_data_policy').and.contain('must be equal to one of the allowed values');
    expect(failure(() => validateNodeConfig({ node: { nmae: 'typo' } }, 'CONFIG')).message).to.contain('/node').and.contain('must NOT have additional properties');
  });
});
