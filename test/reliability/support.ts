/**
 * Shared by the reliability suite (issue 14): the checks that an answer is in its protocol's own
 * error form, and the summary table printed once at the end of the run (cases tried, faults
 * injected, documents checked, lost). Sizes come from the environment so the suite stays modest
 * by default (it runs in .ci/run) and can be turned up by hand.
 */
import { expect } from 'chai';
import { runProgram } from '../support/programs.js';
import { Scrape } from '../support/prometheus.js';

export const SIZES = {
  /** fast-check runs per endpoint property. */
  runs: Number(process.env.RELIABILITY_RUNS ?? 40),
  /** SIGKILL rounds of the node during publishing. */
  killRounds: Number(process.env.RELIABILITY_KILL_ROUNDS ?? 3),
  /** Documents per publish batch in the kill tests. */
  batch: Number(process.env.RELIABILITY_BATCH ?? 100),
  /** Documents harvested while the store is killed. */
  harvestDocs: Number(process.env.RELIABILITY_HARVEST_DOCS ?? 600),
};

interface Row { cases: number; faults: number; checked: number; lost: number; duplicated: number }
const table = new Map<string, Row>();

export function record(name: string, counts: Partial<Row>): void {
  const row = table.get(name) ?? { cases: 0, faults: 0, checked: 0, lost: 0, duplicated: 0 };
  for (const key of Object.keys(counts) as (keyof Row)[]) row[key] += counts[key] ?? 0;
  table.set(name, row);
}

export function summaryTable(): string {
  const header = ['check', 'cases tried', 'faults injected', 'documents checked', 'lost', 'duplicated'];
  const rows = [...table.entries()].map(([name, r]) => [name, r.cases, r.faults, r.checked, r.lost, r.duplicated].map(String));
  const total = [...table.values()].reduce((sum, r) => ({ cases: sum.cases + r.cases, faults: sum.faults + r.faults, checked: sum.checked + r.checked, lost: sum.lost + r.lost, duplicated: sum.duplicated + r.duplicated }), { cases: 0, faults: 0, checked: 0, lost: 0, duplicated: 0 });
  rows.push(['TOTAL', total.cases, total.faults, total.checked, total.lost, total.duplicated].map(String));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

// A root hook (registered once: this module is evaluated once per run): the table after every test.
after(() => {
  if (table.size > 0) console.log(`\nReliability summary\n${summaryTable()}\n`);
});

export interface Answer { status: number; type: string; text: string; headers: Headers }

export async function send(url: string, init?: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text(), headers: response.headers };
}

const STACK = /\n\s+at .+[:(]\d+|\.ts:\d+:\d+|node_modules\//;

/** A JSON service's answer: JSON; an error is {"OK": false, "error": <text>}; no unhandled 5xx. */
export function expectJsonForm(answer: Answer, what: string): void {
  expect(answer.type, `${what}: ${answer.text.slice(0, 200)}`).to.match(/^application\/json/);
  expect(answer.text, what).to.not.match(STACK);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  if (answer.status >= 400 || body.OK === false) {
    expect(body.OK, `${what}: ${answer.text.slice(0, 200)}`).to.equal(false);
    expect(typeof body.error, what).to.equal('string');
  }
  // 500 is the spec's status for publish, delete and obtain errors, but never an unhandled one.
  expect(body.error, `${what}: unhandled`).to.not.equal('internal error');
  expect([502, 503, 504], `${what}: ${answer.status} ${answer.text.slice(0, 200)}`).to.not.include(answer.status);
}

export function wellFormed(xml: string): { ok: boolean; output: string } {
  const result = runProgram('xmllint', 'xmllint', ['--noout', '--nonet', '-'], xml);
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/**
 * An OAI-PMH answer: HTTP 200 and a well-formed OAI-PMH document (§3.6: errors are <error code>).
 * The one exception is a request line over Node's 16 KiB header limit, refused by the HTTP parser
 * before any route sees it: 431 in plain text on /OAI-PMH (src/http/client-error.ts), saying that
 * OAI-PMH §3.1.1.2 offers POST for long arguments.
 */
export function expectOaiForm(answer: Answer, what: string): void {
  if (answer.status === 431) {
    expect(answer.type, what).to.match(/^text\/plain/);
    expect(answer.text, what).to.match(/^The request line and headers are too large \(the limit is 16 KiB\); send long OAI-PMH arguments by POST/);
    return;
  }
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).to.equal(200);
  expect(answer.type, what).to.match(/^text\/xml/);
  const checked = wellFormed(answer.text);
  expect(checked.ok, `${what}: not well-formed: ${checked.output.slice(0, 300)}`).to.equal(true);
  expect(answer.text, what).to.match(/<OAI-PMH[\s>]/);
}

/** A SWORD answer: a deposit receipt or service document, or a sword:error document; no unhandled 5xx. */
export function expectSwordForm(answer: Answer, what: string): void {
  // A request line over 16 KiB never reaches the route (see expectOaiForm).
  if (answer.status === 431) { expectJsonForm(answer, what); return; }
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).to.be.below(500);
  const checked = wellFormed(answer.text);
  expect(checked.ok, `${what}: not well-formed`).to.equal(true);
  if (answer.status >= 400) expect(answer.text, what).to.match(/sword:error|<error/);
}

/** A node HTML page (/auth, /dashboard): a page, never a stack trace or the generic "something went wrong" 500. */
function expectHtmlPage(answer: Answer, what: string): void {
  expect(answer.type, `${what}: ${answer.text.slice(0, 200)}`).to.match(/^text\/html/);
  expect(answer.text, what).to.match(/^<!doctype html>/i);
  expect(answer.text, what).to.not.match(STACK);
}

/**
 * /auth: every answer of its routes is a page (refusals 400/403/413/415 included) or a redirect
 * (sign-in, sign-out); a path or method /auth does not have gets the node's JSON 404/405, and a
 * request line over 16 KiB the HTTP parser's 431 (see expectOaiForm). Never
 * a 5xx: the provider is up, so even its failure page (502) may not appear.
 */
export function expectAuthForm(answer: Answer, what: string): void {
  if (answer.status === 404 || answer.status === 405 || answer.status === 431) { expectJsonForm(answer, what); return; }
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).to.be.oneOf([200, 302, 303, 400, 403, 413, 415]);
  if (answer.status === 302 || answer.status === 303) { expect(answer.headers.get('location'), what).to.be.a('string'); return; }
  expectHtmlPage(answer, what);
}

/** /dashboard: the page for network_admin; refusals (401 with its Basic challenge, 403) and 404/405 in the node's JSON form. */
export function expectDashboardForm(answer: Answer, what: string): void {
  if (answer.status === 200) { expectHtmlPage(answer, what); return; }
  expectJsonForm(answer, what);
}

/** /metrics: the Prometheus text exposition, which an independent parser reads; refusals in the node's JSON form. */
export function expectMetricsForm(answer: Answer, what: string): void {
  if (answer.status !== 200) { expectJsonForm(answer, what); return; }
  expect(answer.type, what).to.match(/^text\/plain; version=0\.0\.4/);
  expect(new Scrape(answer.text).family('lr_store_up'), `${what}: no lr_store_up`).to.not.equal(undefined);
}

/** /schemas/<name>: one of the node's XSDs, well-formed, or the node's JSON 404; never another file. */
export function expectSchemaForm(answer: Answer, what: string): void {
  if (answer.status !== 200) { expectJsonForm(answer, what); return; }
  expect(answer.type, what).to.match(/^application\/xml/);
  expect(answer.text, what).to.match(/<(xs:|xsd:)?schema[\s>]/);
  expect(wellFormed(answer.text).ok, `${what}: not well-formed`).to.equal(true);
}

/**
 * /incoming speaks CouchDB's replication protocol: a JSON answer, errors as CouchDB's
 * {"error", "reason"} (passed on from the store) or the node's own {"OK": false, "error"}
 * (its refusals); no unhandled 5xx. The one 503 is the documented retry of a batch that met a
 * conflict (src/services/distribute/inbound-proxy.http.ts), with Retry-After.
 */
export function expectCouchForm(answer: Answer, what: string): void {
  expect(answer.type, `${what}: ${answer.text.slice(0, 200)}`).to.match(/^application\/json/);
  expect(answer.text, what).to.not.match(STACK);
  const body = JSON.parse(answer.text) as unknown;
  if (answer.status >= 400) {
    const error = (body as { error?: unknown }).error;
    expect(typeof error, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`).to.equal('string');
    expect(error, `${what}: unhandled`).to.not.equal('internal error');
  }
  if (answer.status === 503) {
    expect(answer.headers.get('retry-after'), what).to.be.a('string');
    expect(answer.text, what).to.match(/conflict/);
    return;
  }
  expect(answer.status, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`).to.be.below(500);
}
