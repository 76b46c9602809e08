/** /auth over HTTP without a browser, against a real OpenID Connect provider (spec "Authentication", 3). */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, settled, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { CLIENT_ID, CLIENT_SECRET, CookieJar, csrfOf, postForm, signInWithoutBrowser, startTestProvider, type TestProvider } from '../support/oidc.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { loadSettings, ConfigError } from '../../src/config/settings.js';

const STRONG = 'correct horse battery 42';

describe('/auth (HTTP)', () => {
  let provider: TestProvider;
  let node: TestNode;
  const account = (name: string) => new AccountRepository(node.couch, node.names).find(name);

  before(async () => {
    provider = await startTestProvider();
    node = await startTestNode({ env: { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET } });
    await provider.register(`${node.publicUrl}/auth/callback`);
  });
  after(async () => {
    await node?.stop();
    await provider?.close();
  });

  it('signed out: a page with a sign-in link, security headers, no cookie', async () => {
    const response = await fetch(`${node.url}/auth`);
    const text = await response.text();
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(response.headers.get('content-security-policy')).to.contain("default-src 'none'");
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(text).to.contain('<main id="main">').and.contain('href="/auth/login"');
  });

  it('signs in a verified e-mail: a signed HttpOnly SameSite=Lax session cookie, an account without a password', async () => {
    const { jar, callback } = await signInWithoutBrowser(node.url, 'dora');
    expect(callback.status).to.equal(302);
    expect(callback.headers.get('location')).to.equal('/auth');
    const cookie = callback.headers.getSetCookie().find((line) => line.startsWith('lr_auth='));
    expect(cookie).to.match(/httponly/i).and.match(/samesite=lax/i).and.match(/path=\/auth/i);
    const page = await (await jar.fetch(`${node.url}/auth`)).text();
    expect(page).to.contain('dora@example.org').and.contain('No publishing password is set');
    const stored = await account('dora@example.org');
    expect(stored).to.include({ name: 'dora@example.org', submitter: 'dora@example.org', disabled: false });
    expect(stored?.roles).to.deep.equal(['publisher']);
    expect(stored?.password).to.equal(undefined);
    expect(stored?.web?.issuer).to.equal(provider.issuer);
  });

  it('refuses an unverified e-mail: no session, no account', async () => {
    const { callback } = await signInWithoutBrowser(node.url, 'unverified-erin');
    expect(callback.status).to.equal(403);
    expect(await callback.text()).to.contain('has not verified unverified-erin@example.org');
    expect(callback.headers.getSetCookie().some((line) => /^lr_auth=[^;]/.test(line))).to.equal(false);
    expect(await account('unverified-erin@example.org')).to.equal(undefined);
  });

  it('refuses a callback with a bad state, and one without the sign-in cookie', async () => {
    const jar = new CookieJar();
    const start = await jar.fetch(`${node.url}/auth/login`);
    expect(start.status).to.equal(302);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(jar.get('lr_auth_login')).to.be.a('string');
    const bad = await jar.fetch(`${node.url}/auth/callback?code=forged&state=not-the-state&iss=${encodeURIComponent(provider.issuer)}`);
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.contain('Sign-in failed');
    const none = await fetch(`${node.url}/auth/callback?code=forged&state=${authorize.searchParams.get('state') ?? ''}`);
    expect(none.status).to.equal(400);
    expect(await none.text()).to.contain('not started in this browser');
  });

  it('a forged session cookie is no session', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'fred');
    const [payload] = (jar.get('lr_auth') ?? '').split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), name: 'dora@example.org' })).toString('base64url');
    jar.set('lr_auth', `${forged}.${(jar.get('lr_auth') ?? '').split('.')[1] ?? ''}`);
    const page = await (await jar.fetch(`${node.url}/auth`)).text();
    expect(page).to.contain('href="/auth/login"').and.not.contain('dora@example.org');
  });

  it('CSRF: a POST without the token, or with another one, is refused and changes nothing', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'gina');
    const missing = await postForm(jar, `${node.url}/auth/password`, { password: STRONG, confirmation: STRONG });
    expect(missing.status).to.equal(403);
    expect(missing.text).to.contain('CSRF check failed');
    const wrong = await postForm(jar, `${node.url}/auth/password`, { csrf: 'x'.repeat(43), password: STRONG, confirmation: STRONG });
    expect(wrong.status).to.equal(403);
    const signedOut = await postForm(new CookieJar(), `${node.url}/auth/password`, { csrf: await csrfOf(jar, node.url), password: STRONG, confirmation: STRONG });
    expect(signedOut.status).to.equal(403);
    expect((await account('gina@example.org'))?.password).to.equal(undefined);
  });

  it('a form over 8 KiB is answered 413, its length declared or not, and a body that is no form 415; nothing changes', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'ines');
    const csrf = await csrfOf(jar, node.url);
    const big = new URLSearchParams({ csrf, password: STRONG, confirmation: STRONG, pad: 'x'.repeat(9000) }).toString();
    const declared = await postForm(jar, `${node.url}/auth/password`, { csrf, password: STRONG, confirmation: STRONG, pad: 'x'.repeat(9000) });
    expect(declared.status).to.equal(413);
    expect(declared.text).to.contain('The form is too large.');
    const chunks = [big.slice(0, 4000), big.slice(4000)];
    const streamed = await jar.fetch(`${node.url}/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, duplex: 'half',
      body: new ReadableStream({ pull(controller) { const next = chunks.shift(); if (next === undefined) controller.close(); else controller.enqueue(new TextEncoder().encode(next)); } }),
    } as RequestInit);
    expect(streamed.status).to.equal(413);
    expect(await streamed.text()).to.contain('The form is too large.');
    const json = await jar.fetch(`${node.url}/auth/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrf, password: STRONG, confirmation: STRONG }) });
    expect(json.status).to.equal(415);
    expect((await account('ines@example.org'))?.password).to.equal(undefined);
    expect((await postForm(jar, `${node.url}/auth/password`, { csrf, password: STRONG, confirmation: STRONG })).status).to.equal(200);
  });

  it('refuses a weak password and differing confirmation; a strong one works with Basic publishing', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'hugo');
    const csrf = await csrfOf(jar, node.url);
    const weak = await postForm(jar, `${node.url}/auth/password`, { csrf, password: 'short', confirmation: 'short' });
    expect(weak.status).to.equal(400);
    expect(weak.text).to.contain('at least 10 characters').and.contain('role="alert"');
    const common = await postForm(jar, `${node.url}/auth/password`, { csrf, password: 'qwertyuiop', confirmation: 'qwertyuiop' });
    expect(common.status).to.equal(400);
    expect(common.text).to.contain('too easy to guess');
    const differ = await postForm(jar, `${node.url}/auth/password`, { csrf, password: STRONG, confirmation: `${STRONG}!` });
    expect(differ.status).to.equal(400);
    expect((await account('hugo@example.org'))?.password).to.equal(undefined);
    const ok = await postForm(jar, `${node.url}/auth/password`, { csrf, password: STRONG, confirmation: STRONG });
    expect(ok.status).to.equal(200);
    expect(ok.text).to.not.contain(STRONG);
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth('hugo@example.org', STRONG) });
    expect(published.status).to.equal(200);
    expect(published.body.OK).to.equal(true);
  });

  it('bearer tokens: issued once, publish, revoked at once', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'iris');
    const csrf = await csrfOf(jar, node.url);
    const issued = await postForm(jar, `${node.url}/auth/tokens`, { csrf, label: 'my <script> tool' });
    expect(issued.status).to.equal(200);
    expect(issued.text).to.contain('my &lt;script&gt; tool').and.not.contain('<script>');
    const token = /id="new-token">([^<]+)</.exec(issued.text)?.[1] ?? '';
    expect(token).to.match(/^lrpub\./);
    const stored = await account('iris@example.org');
    expect(JSON.stringify(stored)).to.not.contain(token.split('.')[3]);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, bearer)).body.OK).to.equal(true);
    expect(await (await jar.fetch(`${node.url}/auth`)).text()).to.not.contain(token);
    // A disabled account's tokens prove nothing until it is enabled again.
    const accounts = new AccountRepository(node.couch, node.names);
    const setDisabled = async (disabled: boolean): Promise<void> => {
      const current = await accounts.find('iris@example.org');
      if (!current) throw new Error('iris@example.org was just signed in');
      await accounts.update({ ...current, disabled });
      await settled(node);
    };
    await setDisabled(true);
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, bearer)).status).to.equal(401);
    await setDisabled(false);
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, bearer)).body.OK).to.equal(true);
    const id = stored?.tokens?.[0]?.id ?? '';
    expect((await postForm(jar, `${node.url}/auth/tokens/revoke`, { csrf, id })).status).to.equal(200);
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, bearer)).status).to.equal(401);
  });

  it('does not hand an operator-created account to whoever signs in with its address', async () => {
    await addAccount(node, 'jack@example.org', 'operator-password-1');
    const { callback } = await signInWithoutBrowser(node.url, 'jack');
    expect(callback.status).to.equal(403);
    expect(await callback.text()).to.contain('created by the operator');
  });

  it('marks the cookies Secure when PUBLIC_URL is https (behind a TLS proxy)', async () => {
    const behindTls = await startTestNode({ env: { PUBLIC_URL: 'https://lr.example.org', OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET } });
    try {
      const start = await fetch(`${behindTls.url}/auth/login`, { redirect: 'manual' });
      expect(start.status).to.equal(302);
      expect(new URL(start.headers.get('location') ?? '').searchParams.get('redirect_uri')).to.equal('https://lr.example.org/auth/callback');
      expect(start.headers.getSetCookie().find((line) => line.startsWith('lr_auth_login='))).to.match(/;\s*secure/i);
    } finally {
      await behindTls.stop();
    }
  });

  it('signs out with the CSRF token', async () => {
    const { jar } = await signInWithoutBrowser(node.url, 'kim');
    const out = await jar.fetch(`${node.url}/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${await csrfOf(jar, node.url)}` });
    expect(out.status).to.equal(303);
    expect(jar.get('lr_auth')).to.equal(undefined);
  });
});

describe('/auth without OpenID Connect', () => {
  let node: TestNode;
  before(async () => { node = await startTestNode(); });
  after(async () => node?.stop());

  it('says so on a 503 page, also at /auth/login and /auth/callback', async () => {
    for (const path of ['/auth', '/auth/login', '/auth/callback?code=x&state=y']) {
      const response = await fetch(`${node.url}${path}`, { redirect: 'manual' });
      expect(response.status, path).to.equal(503);
      expect(await response.text(), path).to.contain('no OpenID Connect identity provider is configured');
    }
  });
});

describe('OIDC settings', () => {
  const full = { OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'node', OIDC_CLIENT_SECRET: 's' };
  const error = (env: Record<string, string>): ConfigError => {
    try { loadSettings(env); } catch (caught) { return caught as ConfigError; }
    throw new Error('no ConfigError');
  };

  it('accepts all three, or none', () => {
    expect(loadSettings(full)).to.include({ oidcIssuer: 'https://id.example.org', oidcClientId: 'node' });
    expect(loadSettings({}).oidcIssuer).to.equal(undefined);
    expect(loadSettings({ ...full, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidcIssuer).to.equal('http://127.0.0.1:9000');
  });

  it('names the missing or wrong setting', () => {
    expect(error({ OIDC_ISSUER: full.OIDC_ISSUER, OIDC_CLIENT_SECRET: 's' }).setting).to.equal('OIDC_CLIENT_ID');
    expect(error({ OIDC_CLIENT_ID: 'node', OIDC_CLIENT_SECRET: 's' }).setting).to.equal('OIDC_ISSUER');
    expect(error({ ...full, OIDC_ISSUER: 'http://id.example.org' }).message).to.equal('configuration error: OIDC_ISSUER: must use https (plain http only on loopback)');
    expect(error({ ...full, OIDC_ISSUER: 'not a url' }).setting).to.equal('OIDC_ISSUER');
  });
});
