/**
 * docs/monitoring.md's Prometheus examples (issue 17) against a running node: the YAML blocks are
 * read from the markdown (the `yaml` package); the scrape jobs' metrics_path and credentials get
 * the node's metrics where they point (PORT with a network_admin account, the loopback
 * MONITORING_PORT without, CouchDB's own endpoint when the suite runs on CouchDB); every metric
 * and label the alert rules name is in a real scrape, and each rule's selectors match the series
 * of a node in the trouble the rule is about: a destination unreachable, then its store stopped
 * (the node answering 503).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { addAccount, basicAuth, postJson, startTestNode, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { connectNodes, type NetworkNode } from '../support/network.js';
import { ROOT } from '../support/process.js';
import { scrape, Scrape } from '../support/prometheus.js';
import { onCouchDB, TEST_COUCHDB_URL } from '../support/store.js';
import { MONITORING_HOST } from '../../src/monitoring-app.js';
import type { EmbeddedCouch } from '../../src/embedded/supervisor.js';

interface BasicAuth { username?: string; password?: string; password_file?: string }
interface ScrapeJob { job_name: string; metrics_path?: string; scheme?: string; basic_auth?: BasicAuth; static_configs: { targets: string[]; labels?: Record<string, string> }[] }
interface Rule { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }

/** The keys of Prometheus's scrape_config, rule and basic_auth these examples may use: a misspelt one would be dropped or refused. */
const SCRAPE_KEYS = ['job_name', 'scrape_interval', 'scrape_timeout', 'metrics_path', 'scheme', 'basic_auth', 'authorization', 'static_configs', 'params', 'honor_labels', 'tls_config', 'relabel_configs', 'metric_relabel_configs'];
const BASIC_AUTH_KEYS = ['username', 'username_file', 'password', 'password_file'];
const RULE_KEYS = ['alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'];
/** Labels Prometheus gives every series of a target, and the series it makes itself per target. */
const TARGET_LABELS = ['instance', 'job'];
const SYNTHETIC_SERIES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped'];
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'by', 'without']);

function yamlBlocks(markdown: string): unknown[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => parse(match[1] ?? '') as unknown);
}

interface Matcher { label: string; op: '=' | '!=' | '=~' | '!~'; value: string }
interface Selector { metric: string; matchers: Matcher[]; comparedTo?: number }

/**
 * The series selectors of a PromQL expression (`name{label op "value", ...}`, with a range or a
 * simple `== N` after it), and the label lists of its `by`/`without` clauses. Enough PromQL for
 * these rules: names followed by `(` are functions or aggregations, not series.
 */
function selectorsOf(expr: string): { selectors: Selector[]; grouping: string[] } {
  const grouping: string[] = [];
  const rest = expr.replace(/\b(?:by|without)\s*\(([^)]*)\)/g, (_, labels: string) => {
    grouping.push(...labels.split(',').map((label) => label.trim()).filter(Boolean));
    return ' ';
  });
  const selectors: Selector[] = [];
  for (const match of rest.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\[[^\]]*\])?(\s*\()?(?:\s*==\s*([\d.]+))?/g)) {
    const [, name = '', braces, , call, compared] = match;
    if (call || PROMQL_WORDS.has(name)) continue;
    const matchers = [...(braces ?? '').matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)]
      .map(([, label = '', op, value = '']) => ({ label, op: op as Matcher['op'], value: value.replace(/\\(.)/g, '$1') }));
    selectors.push({ metric: name, matchers, ...(compared !== undefined ? { comparedTo: Number(compared) } : {}) });
  }
  return { selectors, grouping };
}

function matches(labels: Record<string, string>, matcher: Matcher): boolean {
  const value = labels[matcher.label] ?? '';
  const regex = new RegExp(`^(?:${matcher.value})$`);
  switch (matcher.op) {
    case '=': return value === matcher.value;
    case '!=': return value !== matcher.value;
    case '=~': return regex.test(value);
    case '!~': return !regex.test(value);
  }
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('docs/monitoring.md: the Prometheus scrape configuration and alert rules', function () {
  this.timeout(120000);
  const markdown = fs.readFileSync(path.join(ROOT, 'docs/monitoring.md'), 'utf8');
  const blocks = yamlBlocks(markdown);
  const scrapeConfig = blocks.find((block) => (block as { scrape_configs?: unknown }).scrape_configs) as { scrape_configs: ScrapeJob[] } | undefined;
  const rulesFile = blocks.find((block) => (block as { groups?: unknown }).groups) as { groups: { name: string; rules: Rule[] }[] } | undefined;
  const job = (name: string): ScrapeJob => {
    const found = scrapeConfig?.scrape_configs.find((entry) => entry.job_name === name);
    if (!found) throw new Error(`no scrape job ${name} in docs/monitoring.md`);
    return found;
  };
  let node: TestNode;
  const password = 'prometheus-scrape-password-1';
  const publisher = { user: 'docs-publisher', password: 'docs-publisher-password-1' };
  /** The account the lr-node job names (username), with the password its password_file would hold. */
  const credentials = (): { authorization: string } => ({ authorization: basicAuth(String(job('lr-node').basic_auth?.username), password) });

  // The store is stopped by the last test: a node on an embedded store (an empty COUCHDB_URL is unset).
  before(async () => {
    expect(blocks, 'YAML blocks in docs/monitoring.md').to.have.length(2);
    node = await startTestNode({ env: { MONITORING_PORT: '0', COUCHDB_URL: '' } });
    await addAccount(node, String(job('lr-node').basic_auth?.username), password, 'network_admin');
    await addAccount(node, publisher.user, publisher.password, 'publisher');
  });
  after(async () => { await node?.stop(); });

  it('uses only keys Prometheus knows in its scrape jobs and rules', () => {
    expect(scrapeConfig?.scrape_configs.map((entry) => entry.job_name)).to.deep.equal(['lr-node', 'lr-node-local', 'couchdb']);
    for (const entry of scrapeConfig?.scrape_configs ?? []) {
      expect(SCRAPE_KEYS, entry.job_name).to.include.members(Object.keys(entry));
      if (entry.basic_auth) expect(BASIC_AUTH_KEYS, `${entry.job_name} basic_auth`).to.include.members(Object.keys(entry.basic_auth));
      for (const targets of entry.static_configs) expect(['targets', 'labels']).to.include.members(Object.keys(targets));
    }
    const rules = rulesFile?.groups.flatMap((group) => group.rules) ?? [];
    expect(rules.map((rule) => rule.alert)).to.deep.equal(['LearningRegistryStoreDown', 'LearningRegistryDistributionFailing', 'LearningRegistryErrorRate']);
    for (const rule of rules) {
      expect(RULE_KEYS, rule.alert).to.include.members(Object.keys(rule));
      expect(rule.for, rule.alert).to.match(/^\d+[smhd]$/);
    }
  });

  it('the lr-node job gets the node\'s metrics on PORT with its metrics_path and basic auth, and nothing without the credentials', async () => {
    const lrNode = job('lr-node');
    expect(lrNode.scheme ?? 'http').to.equal('http');
    expect(lrNode.basic_auth?.password_file, 'the password is kept in a file').to.be.a('string');
    const metricsPath = lrNode.metrics_path ?? '/metrics';
    const scraped = await scrape(`${node.url}${metricsPath}`, credentials());
    expect(scraped.value('lr_store_up')).to.equal(1);
    expect((await fetch(`${node.url}${metricsPath}`)).status).to.equal(401);
  });

  it('the lr-node-local job gets them on the loopback MONITORING_PORT, without credentials', async () => {
    const local = job('lr-node-local');
    expect(local.basic_auth).to.equal(undefined);
    const targets = local.static_configs.flatMap((entry) => entry.targets);
    expect(targets.map((target) => new URL(`http://${target}`).hostname)).to.deep.equal([MONITORING_HOST]);
    const metricsPath = local.metrics_path ?? '/metrics';
    expect(new URL(node.monitoringUrl as string).hostname).to.equal(MONITORING_HOST);
    const scraped = await scrape(`${node.monitoringUrl}${metricsPath}`);
    expect(scraped.value('lr_store_up')).to.equal(1);
    // On PORT the same path needs an account: the job is only right on the monitoring port.
    expect((await fetch(`${node.url}${metricsPath}`)).status).to.equal(401);
  });

  (onCouchDB ? it : it.skip)('the couchdb job gets CouchDB\'s own metrics with its metrics_path and basic auth', async () => {
    const couchdb = job('couchdb');
    const server = new URL(TEST_COUCHDB_URL as string);
    expect(couchdb.basic_auth?.username).to.be.a('string');
    const admin = basicAuth(decodeURIComponent(server.username), decodeURIComponent(server.password));
    const response = await fetch(`${server.origin}${couchdb.metrics_path}`, { headers: { authorization: admin } });
    expect(response.status).to.equal(200);
    // CouchDB 3.5 says `text/plain; version=2.0`: Prometheus reads any text/plain as its text format.
    expect(response.headers.get('content-type')).to.match(/^text\/plain\b/);
    const scraped = new Scrape(await response.text());
    expect(scraped.families.some((family) => family.name.startsWith('couchdb_'))).to.equal(true);
    expect((await fetch(`${server.origin}${couchdb.metrics_path}`)).status).to.equal(401);
  });

  it('names in its alert rules only metrics and labels a node serves, and their selectors match a node in trouble', async () => {
    const healthy = await scrape(`${node.url}/metrics`, credentials());
    // A destination nothing listens on, after a document to distribute: the last outcome is unreachable.
    expect((await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth(publisher.user, publisher.password) })).body.OK).to.equal(true);
    const self = { node } as unknown as NetworkNode;
    await connectNodes(self, { node: { publicUrl: `http://127.0.0.1:${await closedPort()}` } } as unknown as NetworkNode, { credentials: false });
    expect((await postJson(`${node.url}/distribute`, '', credentials())).body).to.include({ OK: true, error: '' });
    const unreachable = await scrape(`${node.url}/metrics`, credentials());
    // Then the store stopped (as the node stops it at shutdown, so not restarted): requests answer 503.
    await (node.embedded as EmbeddedCouch).stop();
    expect((await fetch(`${node.url}/status`)).status).to.equal(503);
    const storeDown = await scrape(`${node.monitoringUrl}/metrics`);
    const scrapes: Scrape[] = [healthy, unreachable, storeDown];
    /** The scrape of the trouble each rule is about. */
    const trouble: Record<string, Scrape> = { LearningRegistryStoreDown: storeDown, LearningRegistryDistributionFailing: unreachable, LearningRegistryErrorRate: storeDown };
    const jobs = scrapeConfig?.scrape_configs.map((entry) => entry.job_name) ?? [];

    const problems: string[] = [];
    const rules = rulesFile?.groups.flatMap((group) => group.rules) ?? [];
    for (const rule of rules) {
      const { selectors, grouping } = selectorsOf(rule.expr);
      if (selectors.length === 0) problems.push(`${rule.alert}: no series in ${rule.expr}`);
      const labelsSeen = new Set(TARGET_LABELS);
      for (const selector of selectors) {
        const where = `${rule.alert}: ${selector.metric}`;
        if (SYNTHETIC_SERIES.includes(selector.metric)) {
          // Prometheus's own series of each target: its job matcher must select the node's jobs, not CouchDB's.
          const selected = jobs.filter((name) => selector.matchers.every((matcher) => matcher.label !== 'job' || matches({ job: name }, matcher)));
          if (JSON.stringify(selected) !== JSON.stringify(['lr-node', 'lr-node-local'])) problems.push(`${where} selects the jobs ${selected.join(', ')}`);
          continue;
        }
        const samples = scrapes.flatMap((scraped) => scraped.samples(selector.metric));
        if (samples.length === 0) { problems.push(`${where} is not in a scrape of the node`); continue; }
        for (const sample of samples) for (const label of Object.keys(sample.labels)) labelsSeen.add(label);
        for (const matcher of selector.matchers) {
          if (!samples.some((sample) => matcher.label in sample.labels)) problems.push(`${where} has no label ${matcher.label}`);
        }
        const select = (scraped: Scrape | undefined): { value: number }[] => (scraped?.samples(selector.metric) ?? []).filter((sample) => selector.matchers.every((matcher) => matches(sample.labels, matcher)));
        const selected = select(trouble[rule.alert]);
        if (selected.length === 0) problems.push(`${where}{${selector.matchers.map((m) => `${m.label}${m.op}"${m.value}"`).join(',')}} matches no series of a node in that trouble`);
        if (selector.comparedTo !== undefined && !selected.some((sample) => sample.value === selector.comparedTo)) {
          problems.push(`${where} is never ${selector.comparedTo} in that trouble (${selected.map((sample) => sample.value).join(', ')})`);
        }
        if (selector.comparedTo !== undefined && select(healthy).some((sample) => sample.value === selector.comparedTo)) problems.push(`${where} is ${selector.comparedTo} on a healthy node`);
      }
      for (const label of grouping) if (!labelsSeen.has(label)) problems.push(`${rule.alert}: by/without names ${label}, a label of none of its series`);
      const annotations = Object.values(rule.annotations ?? {}).join('\n');
      for (const [, label = ''] of annotations.matchAll(/\$labels\.(\w+)/g)) {
        // A label an aggregation removes is not there to print.
        if (!labelsSeen.has(label) || (grouping.includes(label) && /without/.test(rule.expr))) problems.push(`${rule.alert}: its annotations print $labels.${label}, which its series do not have`);
      }
      for (const [name = ''] of annotations.matchAll(/\blr_\w+/g)) {
        if (!scrapes.some((scraped) => scraped.samples(name).length > 0)) problems.push(`${rule.alert}: its annotations name ${name}, not in a scrape of the node`);
      }
    }
    expect(problems).to.deep.equal([]);
    // The selectors found are the ones the rules use (the parsing above is not vacuous).
    expect(rules.flatMap((rule) => selectorsOf(rule.expr).selectors.map((selector) => selector.metric))).to.deep.equal([
      'lr_store_up', 'up', 'lr_distribution_last_outcome', 'lr_http_requests_total', 'lr_http_requests_total',
    ]);
  });
});
