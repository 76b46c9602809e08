/**
 * /dashboard (issue 17) in headless Debian Chromium with a populated node: documents published
 * and distributed to a second node, requests with errors. The figures are checked in the page
 * as served (no script needed) and as drawn (uPlot charts), with no console error (a CSP
 * violation is one); the screenshots are saved under test-output/dashboard/. Accessibility from
 * computed styles (test/support/accessibility.ts): the contrast of every text, and Tab through
 * every focusable element with a visible focus. The server-error figures against the 503s of a
 * node whose store is stopped.
 */
import { expect } from 'chai';
import { nsdlDocs } from '../support/documents.js';
import { startTestNetwork, publish, distribute, settled, authOf, type TestNetwork, type NetworkNode } from '../support/network.js';
import { launchBrowser, Screenshots, type TestBrowser } from '../support/browser.js';
import { requireProgram } from '../support/programs.js';
import { onCouchDB } from '../support/store.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { scrape } from '../support/prometheus.js';
import { tabThrough, textContrast } from '../support/accessibility.js';
import type { Page } from 'playwright-core';
import type { EmbeddedCouch } from '../../src/embedded/supervisor.js';

/** The restarts figure is the embedded store supervisor's; Apache CouchDB restarts itself. */
const RESTARTS = onCouchDB ? 'not applicable (Apache CouchDB)' : '0';
const shots = new Screenshots('dashboard');

describe('/dashboard in a browser', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  let browser: TestBrowser;

  before(async function () {
    requireProgram('chromium');
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
    await publish(a, nsdlDocs(7));
    expect((await distribute(a)).body.OK).to.equal(true);
    await settled(b, 7);
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${a.node.url}/no-such-page`)).status).to.equal(404);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await net?.stop();
  });

  it('is readable without JavaScript: every figure is in the served HTML', async () => {
    const response = await fetch(`${a.node.url}/dashboard`, { headers: authOf(a.admin) });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-security-policy')).to.contain("script-src 'self'");
    const text = await response.text();
    expect(text).to.match(/<dd id="documents-stored">7<\/dd>/);
    expect(text).to.match(/<dd id="incoming-backlog">0<\/dd>/);
    expect(text).to.contain(`<dd id="store-restarts">${RESTARTS}</dd>`);
    expect(text).to.contain(`<code>${b.node.publicUrl}</code>`);
    expect(text).to.match(new RegExp(`<th scope="row">${new Date().toISOString().slice(0, 10)}</th><td class="num">7</td>`));
  });

  it('shows the figures, draws the charts, works from the keyboard, and logs no console error', async () => {
    const { page } = browser;
    const problems: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.setExtraHTTPHeaders(authOf(a.admin));
    const response = await page.goto(`${a.node.url}/dashboard`);
    expect(response?.status()).to.equal(200);
    await page.waitForSelector('#chart-stored canvas', { timeout: 10000 }).catch((error: Error) => { throw new Error(`${error.message} ${JSON.stringify(problems)}`); });
    await page.waitForSelector('#chart-requests canvas');
    expect(await page.title()).to.match(/^Node dashboard/);
    await shots.take(page, 'dashboard');

    const figure = async (id: string): Promise<string> => ((await page.locator(`#${id}`).textContent()) ?? '').trim();
    expect(await figure('documents-stored')).to.equal('7');
    expect(await figure('store-health')).to.match(/^up/);
    expect(await figure('incoming-backlog')).to.equal('0');
    expect(await figure('store-restarts')).to.equal(RESTARTS);
    expect(Number(await figure('requests-hour'))).to.be.at.least(5);
    expect(Number(await figure('client-errors-hour'))).to.be.at.least(3);
    const destination = page.locator('#destinations tbody tr', { hasText: b.node.publicUrl });
    expect(await destination.count()).to.equal(1);
    const cells = (await destination.locator('td').allTextContents()).map((cell) => cell.trim());
    expect(cells[0]).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(cells[1]).to.equal('ok');
    expect(cells[2]).to.equal('7');
    const today = page.locator('#stored-per-day tbody tr').first();
    expect(await today.locator('th').textContent()).to.equal(new Date().toISOString().slice(0, 10));
    expect(await today.locator('td').textContent()).to.equal('7');
    const lagRows = await page.locator('#view-lag tbody tr').allTextContents();
    expect(lagRows.some((row) => row.includes('harvest'))).to.equal(true);

    // Accessibility: the charts only repeat the tables and are hidden from assistive technology;
    // every table has header cells with a scope; the first Tab reaches the skip link.
    expect(await page.locator('.chart[aria-hidden="true"]').count()).to.equal(2);
    // (uPlot's legend tables are inside the hidden charts.)
    const tables = page.locator('table:not(.u-legend)');
    expect(await tables.count()).to.equal(4);
    expect(await page.locator('table:not(.u-legend):has(th[scope])').count()).to.equal(4);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    expect(problems).to.deep.equal([]);
  });

  it('has text contrast of at least 4.5:1 (3:1 large) everywhere, and Tab reaches every focusable element with a visible focus', async () => {
    const { page } = browser;
    await page.setExtraHTTPHeaders(authOf(a.admin));
    expect((await page.goto(`${a.node.url}/dashboard`))?.status()).to.equal(200);
    await page.waitForSelector('#chart-requests canvas');
    await expectAccessible(page, ['a.skip "Skip to content"', 'a "/metrics"']);
  });
});

/**
 * Server errors in the figures: a node whose store is stopped answers 503, and its dashboard on
 * the loopback monitoring port (which needs no account, so answers while the store is down) shows
 * exactly the 5xx answers it gave, as /metrics counts them.
 */
describe('/dashboard in a browser, the store stopped', function () {
  this.timeout(120000);
  let node: TestNode;
  let browser: TestBrowser;

  // A node on an embedded store (an empty COUCHDB_URL is unset), which the test stops.
  before(async () => {
    requireProgram('chromium');
    node = await startTestNode({ env: { MONITORING_PORT: '0', COUCHDB_URL: '' } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  it('shows the 5xx answers in its error figures, as /metrics counts them, and stays accessible', async () => {
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${node.url}/status`)).status).to.equal(200);
    expect((await fetch(`${node.url}/no-such-page`)).status).to.equal(404);
    // Stopped as the node stops it at shutdown: the supervisor does not restart it.
    await (node.embedded as EmbeddedCouch).stop();
    const failed = await Promise.all(['/status', '/obtain?request_ID=x', '/harvest/getrecord?request_ID=x', '/slice?any_tags=x'].map(async (path) => (await fetch(`${node.url}${path}`)).status));
    expect(failed).to.deep.equal([503, 503, 503, 503]);

    const scraped = await scrape(`${node.monitoringUrl}/metrics`);
    const served = (scraped.family('lr_http_requests_total')?.metrics ?? []).filter((sample) => sample.labels?.status?.startsWith('5')).reduce((sum, sample) => sum + Number(sample.value), 0);
    expect(served).to.equal(4);
    expect(scraped.value('lr_store_up')).to.equal(0);

    const { page } = browser;
    const problems: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    expect((await page.goto(`${node.monitoringUrl}/dashboard`))?.status()).to.equal(200);
    await page.waitForSelector('#chart-requests canvas');
    await shots.take(page, 'store-stopped');
    const figure = async (id: string): Promise<string> => ((await page.locator(`#${id}`).textContent()) ?? '').trim();
    expect(await figure('store-health')).to.match(/^down/);
    expect(await figure('server-errors-hour')).to.equal('4');
    expect(await figure('client-errors-hour')).to.equal('1');
    expect(await figure('requests-hour')).to.equal('8');
    // The per-minute table adds up to the same (the minute may have turned meanwhile).
    const serverErrorCells = await page.locator('#requests-per-minute tbody tr td:nth-of-type(3)').allTextContents();
    expect(serverErrorCells.reduce((sum, cell) => sum + Number(cell), 0)).to.equal(4);
    await expectAccessible(page, ['a.skip "Skip to content"', 'a "/metrics"']);
    expect(problems).to.deep.equal([]);
  });
});

/** Text contrast of the whole page, then Tab through it: `focusable` in this order, each with a visible focus. */
async function expectAccessible(page: Page, focusable: string[]): Promise<void> {
  const contrast = await textContrast(page);
  expect(contrast.checked, 'text elements checked').to.be.above(30);
  expect(contrast.problems).to.deep.equal([]);
  const keyboard = await tabThrough(page);
  expect(keyboard.problems).to.deep.equal([]);
  expect(keyboard.focusable).to.deep.equal(focusable);
  expect(keyboard.reached).to.deep.equal(focusable);
}
