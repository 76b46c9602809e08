/**
 * HEAVY_REQUEST_LIMIT (src/http/request-slots.ts) through the real HTTP interface: while a
 * publish batch holds the only slot (its signer's key location, a loopback server of the test's
 * own, has not answered yet), list pages wait their turn and, past VIEW_WAIT_MS, are answered 503
 * with Retry-After in each protocol's form; obtain by ID, OAI-PMH Identify and /status answer at
 * once; the held publish then completes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, currentStatus, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';
import { scrape } from '../support/prometheus.js';

const AUTH = basicAuth('slots', 'slots-password-1');
const WAIT_MS = 400;

describe('heavy requests take turns; light ones never wait for them', function () {
  this.timeout(120000);
  let node: TestNode;
  let keyServer: http.Server;
  let keyAsked: Promise<void>;
  let answerKey: () => void;
  let keyUrl: string;
  let publicKey: string;
  let signed: Record<string, unknown>;

  before(async () => {
    const keys = await generateNodeKeyPair('slow signer', 'slow@example.org');
    publicKey = keys.publicKeyArmored;
    let asked!: () => void;
    keyAsked = new Promise((resolve) => { asked = resolve; });
    const release = new Promise<void>((resolve) => { answerKey = resolve; });
    keyServer = http.createServer((_req, res) => {
      asked();
      void release.then(() => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(publicKey); });
    });
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
    keyUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/key`;
    node = await startTestNode({
      env: { HEAVY_REQUEST_LIMIT: '1', VIEW_WAIT_MS: String(WAIT_MS), MONITORING_PORT: '0' },
      nodeConfig: { policy: { verify_signatures: true, allow_private_fetch: true } },
    });
    await addAccount(node, 'slots', 'slots-password-1');
    const stored = await postJson(`${node.url}/publish`, { documents: nsdlDocs(5) }, { authorization: AUTH });
    expect(stored.body.OK, JSON.stringify(stored.body).slice(0, 300)).to.equal(true);
    await currentStatus(node.url);
    // Every view built before the slot is taken: the waits below are the slot's, not an index's.
    for (const path of ['/harvest/listrecords', '/OAI-PMH?verb=ListRecords&metadataPrefix=oai_dc', '/slice?any_tags=education', '/obtain']) {
      expect((await fetch(`${node.url}${path}`)).status, path).to.equal(200);
    }
    signed = await signEnvelope({ ...nsdlDocs(6)[5] as Record<string, unknown> }, keys.privateKeyArmored, undefined, [keyUrl]);
  });

  after(async () => {
    answerKey?.();
    await node?.stop();
    await new Promise<void>((resolve) => keyServer.close(() => resolve()));
  });

  it('holds list pages to the limit while a publish batch runs, and serves the light requests meanwhile', async () => {
    const held = postJson(`${node.url}/publish`, { documents: [signed] }, { authorization: AUTH });
    // The batch is in its slot, verifying, once the key location is asked.
    const early = await Promise.race([keyAsked.then(() => undefined), held]);
    expect(early && JSON.stringify(early.body).slice(0, 300), "the publish answered before it asked for the key").to.equal(undefined);

    const started = Date.now();
    const harvest = await getJson(`${node.url}/harvest/listrecords`);
    expect(harvest.status).to.equal(503);
    expect(harvest.body).to.include({ OK: false });
    expect(String(harvest.body.error)).to.match(/the node is busy: 1 list pages and publish batches were in progress for 0.4 s; retry in 2 s/);
    expect(harvest.headers.get('retry-after')).to.equal('2');
    expect(Date.now() - started).to.be.at.least(WAIT_MS - 50);

    const oai = await fetch(`${node.url}/OAI-PMH?verb=ListRecords&metadataPrefix=oai_dc`);
    expect(oai.status).to.equal(503);
    expect(oai.headers.get('retry-after')).to.equal('2');
    expect(await oai.text()).to.match(/^The OAI-PMH service is temporarily unavailable \(the node is busy/);
    expect((await fetch(`${node.url}/slice?any_tags=education`)).status).to.equal(503);
    expect((await fetch(`${node.url}/obtain`)).status).to.equal(503);

    // Light requests: not a slot's wait.
    const lightStarted = Date.now();
    const docId = String((nsdlDocs(1)[0] as Record<string, unknown>).doc_ID);
    const one = await getJson(`${node.url}/obtain?by_doc_ID=true&request_ID=${encodeURIComponent(docId)}`);
    expect(one.status).to.equal(200);
    expect((one.body.documents as unknown[]).length).to.equal(1);
    expect((await fetch(`${node.url}/OAI-PMH?verb=Identify`)).status).to.equal(200);
    expect((await fetch(`${node.url}/harvest/getrecord?request_ID=${encodeURIComponent(docId)}&by_doc_ID=true`)).status).to.equal(200);
    expect((await getJson(`${node.url}/status`)).status).to.equal(200);
    expect(Date.now() - lightStarted, 'the light requests waited for the slot').to.be.below(WAIT_MS);

    // /metrics says so: the batch holds the only slot; four requests waited their longest.
    const busy = await scrape(`${node.monitoringUrl}/metrics`);
    expect(busy.value('lr_heavy_requests', { state: 'running' })).to.equal(1);
    expect(busy.value('lr_heavy_requests', { state: 'waiting' })).to.equal(0);
    expect(busy.value('lr_heavy_requests_refused_total')).to.equal(4);

    // A heavy request asked before the slot frees runs once it does.
    const queued = getJson(`${node.url}/harvest/listrecords`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    answerKey();
    const published = await held;
    expect(published.body.OK, JSON.stringify(published.body).slice(0, 300)).to.equal(true);
    expect((published.body.document_results as { OK: boolean }[])[0]?.OK).to.equal(true);
    expect((await queued).status).to.equal(200);
    expect((await scrape(`${node.monitoringUrl}/metrics`)).value('lr_heavy_requests', { state: 'running' })).to.equal(0);
  });

  it('HEAVY_REQUEST_LIMIT takes a whole number from 1 or off, and says so otherwise', async () => {
    const { loadSettings } = await import('../../src/config/settings.js');
    expect(loadSettings({ HEAVY_REQUEST_LIMIT: 'off' }).heavyRequestLimit).to.equal(undefined);
    expect(loadSettings({ HEAVY_REQUEST_LIMIT: '3' }).heavyRequestLimit).to.equal(3);
    expect(() => loadSettings({ HEAVY_REQUEST_LIMIT: '0' })).to.throw(/HEAVY_REQUEST_LIMIT: must be a whole number 1-1024 or off, got "0"/);
  });
});
