/**
 * /auth end to end in headless Chromium against a real OpenID Connect provider (issue 7):
 * sign in, set a password, publish with it, issue and revoke a bearer token, revoke the
 * password, publish refused. Each page is saved under test-output/auth/.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { startTestNode, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from '../support/oidc.js';
import { launchBrowser, Screenshots, type TestBrowser } from '../support/browser.js';
import { requireProgram } from '../support/programs.js';

const PASSWORD = 'a publishing passphrase 7';

describe('/auth in a browser', function () {
  let provider: TestProvider;
  let node: TestNode;
  let browser: TestBrowser;
  const shots = new Screenshots('auth');

  before(async function () {
    requireProgram('chromium');
    provider = await startTestProvider();
    node = await startTestNode({ env: { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET } });
    await provider.register(`${node.publicUrl}/auth/callback`);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
    await provider?.close();
  });

  const publish = (authorization: string) => postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization });

  it('signs in, sets a password, publishes with it, revokes it, and publishing is refused', async () => {
    const { page } = browser;
    await page.goto(`${node.publicUrl}/auth`);
    expect(await page.title()).to.match(/^Publishing accounts/);
    await shots.take(page, 'signed-out');

    await page.getByRole('link', { name: /Sign in with/ }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await shots.take(page, 'provider-login');
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('the provider password');
    await page.locator('button[type="submit"]').click();
    await page.waitForLoadState();
    if (page.url().startsWith(provider.issuer)) {
      await shots.take(page, 'provider-consent');
      await page.locator('button[type="submit"]').click();
    }
    await page.waitForURL(`${node.publicUrl}/auth`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Your publishing account');
    expect(await page.locator('main').textContent()).to.contain('alice@example.org').and.contain('No publishing password is set');
    await shots.take(page, 'account');

    await page.getByLabel('New publishing password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    expect(await page.getByRole('status').first().textContent()).to.contain('Your publishing password is set');
    expect(await page.content()).to.not.contain(PASSWORD);
    await shots.take(page, 'password-set');

    const accepted = await publish(basicAuth('alice@example.org', PASSWORD));
    expect(accepted.status).to.equal(200);
    expect(accepted.body.OK).to.equal(true);

    await page.getByLabel('Label of a new token').fill('harvest robot');
    await page.getByRole('button', { name: 'Issue a token' }).click();
    const token = (await page.locator('#new-token').textContent()) ?? '';
    await shots.take(page, 'token-issued');
    expect((await publish(`Bearer ${token}`)).body.OK).to.equal(true);
    await page.getByRole('button', { name: /^Revoke token harvest robot/ }).click();
    expect((await publish(`Bearer ${token}`)).status).to.equal(401);

    await page.getByRole('button', { name: 'Revoke the publishing password' }).click();
    expect(await page.getByRole('status').first().textContent()).to.contain('revoked');
    await shots.take(page, 'password-revoked');
    const refused = await publish(basicAuth('alice@example.org', PASSWORD));
    expect(refused.status).to.equal(401);
    expect(refused.body.OK).to.equal(false);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${node.publicUrl}/auth`);
    expect(await page.getByRole('link', { name: /Sign in with/ }).count()).to.equal(1);
    await shots.take(page, 'signed-out-again');
    expect(fs.readdirSync(shots.dir).filter((file) => file.endsWith('.png')).length).to.be.at.least(6);
  });
});
