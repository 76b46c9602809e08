/**
 * The operators' dashboard (issue 17), rendered from plain data. Every figure is in the HTML
 * (tables and definition lists), so it reads without JavaScript and with a screen reader; the
 * charts drawn by /dashboard/assets/dashboard.js (uPlot, served by the node) repeat the tables
 * visually and are hidden from assistive technology. The chart data travels in a JSON data block
 * (not executed, so the CSP allows scripts from this node only).
 */
import { html, SafeHtml } from './html.js';
import { page, PAGE_STYLE_SOURCE } from './layout.js';
import type { DashboardData } from '../../monitoring/dashboard-data.js';

export const DASHBOARD_ASSETS = '/dashboard/assets';

/** Scripts and style sheets from this node only; nothing inline runs. */
export const DASHBOARD_CSP = `default-src 'none'; script-src 'self'; style-src 'self' ${PAGE_STYLE_SOURCE}; img-src 'self'; connect-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

const number = (value: number | null | undefined): string => (value === null || value === undefined ? 'unknown' : value.toLocaleString('en-US'));
const time = (iso: string | null): string => (iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : 'never');

function storeSection(data: DashboardData): SafeHtml {
  const health = data.up ? html`<span class="ok">up</span>` : html`<span class="bad">down</span>`;
  const lag = data.viewLag.map((entry) => html`<tr><td><code>${entry.database}</code></td><td><code>${entry.designDoc}</code></td><td class="num">${number(entry.behind)}</td></tr>`);
  return html`
<section aria-labelledby="store-heading">
<h2 id="store-heading">Store</h2>
<dl class="figures">
<div><dt>Health</dt><dd id="store-health">${health}${data.responseMs !== null ? html` <span class="hint">(answered in ${data.responseMs.toFixed(1)} ms)</span>` : ''}${data.error ? html` <span class="hint">${data.error}</span>` : ''}</dd></div>
<div><dt>Documents stored</dt><dd id="documents-stored">${number(data.documentsStored)}</dd></div>
<div><dt>Incoming backlog</dt><dd id="incoming-backlog">${number(data.incomingBacklog)}</dd></div>
<div><dt>Parked, to try again</dt><dd id="incoming-parked">${number(data.incomingParked)}</dd></div>
<div><dt>Embedded store restarts</dt><dd id="store-restarts">${data.embedded ? number(data.embedded.restarts) : 'not applicable (Apache CouchDB)'}</dd></div>
<div><dt>Last inbound distribution</dt><dd>${time(data.lastInSync)}</dd></div>
</dl>
<table id="view-lag"><caption>View build lag (changes not yet indexed)</caption>
<thead><tr><th scope="col">Database</th><th scope="col">Design document</th><th scope="col" class="num">Behind</th></tr></thead>
<tbody>${lag.length ? lag : html`<tr><td colspan="3">No figures: the store did not answer.</td></tr>`}</tbody></table>
</section>`;
}

function storedSection(data: DashboardData): SafeHtml {
  const rows = [...data.perDay].reverse().filter((day) => day.stored > 0).map((day) => html`<tr><th scope="row">${day.day}</th><td class="num">${number(day.stored)}</td></tr>`);
  return html`
<section aria-labelledby="stored-heading">
<h2 id="stored-heading">Documents stored per day</h2>
<figure><div class="chart" id="chart-stored" aria-hidden="true"></div>
<figcaption class="hint">Documents stored (published or distributed in) on each of the last ${data.perDay.length} days, UTC, by their <code>node_timestamp</code>.${data.perDayBehind ? ' Still counting older documents: reload for the rest.' : ''}</figcaption></figure>
<table id="stored-per-day"><caption class="hint">Days with documents stored, newest first (the other days: none)</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Stored</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="2">${data.perDay.length ? 'No documents stored in these days.' : 'No figures: the store did not answer.'}</td></tr>`}</tbody></table>
</section>`;
}

function requestsSection(data: DashboardData): SafeHtml {
  const total = data.lastHour.reduce((sum, minute) => ({ requests: sum.requests + minute.requests, client: sum.client + minute.clientErrors, server: sum.server + minute.serverErrors }), { requests: 0, client: 0, server: 0 });
  const active = data.lastHour.filter((minute) => minute.requests > 0).reverse()
    .map((minute) => html`<tr><th scope="row">${minute.minute.slice(11, 16)}</th><td class="num">${minute.requests}</td><td class="num">${minute.clientErrors}</td><td class="num">${minute.serverErrors}</td></tr>`);
  return html`
<section aria-labelledby="requests-heading">
<h2 id="requests-heading">Requests in the last hour (this process)</h2>
<dl class="figures">
<div><dt>Requests</dt><dd id="requests-hour">${number(total.requests)}</dd></div>
<div><dt>Client errors (4xx)</dt><dd id="client-errors-hour">${number(total.client)}</dd></div>
<div><dt>Server errors (5xx)</dt><dd id="server-errors-hour">${number(total.server)}</dd></div>
</dl>
<figure><div class="chart" id="chart-requests" aria-hidden="true"></div>
<figcaption class="hint">Requests and errors per minute answered by this node process (pid ${data.pid}); other processes of the node show theirs, Prometheus adds them up.</figcaption></figure>
<table id="requests-per-minute"><caption class="hint">Minutes with requests, newest first (UTC)</caption>
<thead><tr><th scope="col">Minute</th><th scope="col" class="num">Requests</th><th scope="col" class="num">4xx</th><th scope="col" class="num">5xx</th></tr></thead>
<tbody>${active.length ? active : html`<tr><td colspan="4">No requests in the last hour.</td></tr>`}</tbody></table>
</section>`;
}

function destinationsSection(data: DashboardData): SafeHtml {
  const rows = data.destinations.map((entry) => html`
<tr><th scope="row"><code>${entry.destination}</code></th><td>${time(entry.lastRun)}</td><td><span class="${entry.outcome === 'ok' ? 'ok' : entry.outcome === 'skipped' ? '' : 'bad'}">${entry.outcome}</span>${entry.reason ? html`<br><span class="hint">${entry.reason}</span>` : ''}</td><td class="num">${number(entry.docsSent)}</td></tr>`);
  return html`
<section aria-labelledby="destinations-heading">
<h2 id="destinations-heading">Distribution destinations</h2>
<table id="destinations"><thead><tr><th scope="col">Destination</th><th scope="col">Last distribution</th><th scope="col">Outcome</th><th scope="col" class="num">Documents sent</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4">No distribution has run yet.</td></tr>`}</tbody></table>
</section>`;
}

/** The data of the charts, as a JSON data block: `<` escaped so no text can end the element. */
function chartData(data: DashboardData): SafeHtml {
  const json = JSON.stringify({
    stored: { days: data.perDay.map((day) => day.day), counts: data.perDay.map((day) => day.stored) },
    requests: { minutes: data.lastHour.map((minute) => minute.minute), requests: data.lastHour.map((m) => m.requests), clientErrors: data.lastHour.map((m) => m.clientErrors), serverErrors: data.lastHour.map((m) => m.serverErrors) },
  });
  return new SafeHtml(`<script type="application/json" id="dashboard-data">${json.replace(/</g, '\\u003c')}</script>`);
}

export function dashboardPage(data: DashboardData): string {
  const head = html`
<link rel="icon" href="${DASHBOARD_ASSETS}/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${DASHBOARD_ASSETS}/uPlot.min.css">
<link rel="stylesheet" href="${DASHBOARD_ASSETS}/dashboard.css">
<script src="${DASHBOARD_ASSETS}/uPlot.iife.min.js" defer></script>
<script src="${DASHBOARD_ASSETS}/dashboard.js" defer></script>`;
  return page('Node dashboard', html`
<p class="hint">Figures at ${time(data.generated)}. Reload the page for new figures; <a href="/metrics">/metrics</a> has them for Prometheus.</p>
${storeSection(data)}
${storedSection(data)}
${requestsSection(data)}
${destinationsSection(data)}
${chartData(data)}`, data.nodeName, head);
}
