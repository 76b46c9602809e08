/**
 * OAuth 1.0 publishing (src/services/auth/oauth1.ts), signed by an independent client: Debian's
 * oauthlib (RFC 5849), as the original node's publishers' tools sign (python-oauth2: HMAC-SHA1 in
 * the Authorization header, oauth_body_hash for a JSON body).
 */
import { expect } from 'chai';
import { addAccount, getJson, settled, startTestNode, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { requireProgram } from '../support/programs.js';
import { oauthRequest, type OAuthAnswer as Answer } from '../support/oauth1-client.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { newOAuthCredential } from '../../src/services/auth/oauth1.js';

describe('OAuth 1.0 publishing (an independent oauthlib client)', function () {
  this.timeout(180000);
  let node: TestNode;
  let credentials: Record<string, string>;
  const PUBLIC = 'http://lr.example.org/node';
  let serial = 0;
  const documents = (): string => JSON.stringify({ documents: [{ ...nsdlDocs(1)[0], doc_ID: `oauth-doc-${serial += 1}` }] });
  const publishAs = (extra: Record<string, unknown> = {}, body = documents()): Promise<Answer[]> => oauthRequest({ url: `${node.url}/publish`, body, ...credentials, ...extra });
  const ok = (answer: Answer | undefined): boolean => answer?.status === 200 && (JSON.parse(answer.body) as { document_results: { OK: boolean }[] }).document_results.every((result) => result.OK);

  before(async () => {
    requireProgram('oauthlib');
    // Behind a reverse proxy that adds a path prefix: clients sign PUBLIC_URL's form of the URL.
    node = await startTestNode({ env: { PUBLIC_URL: PUBLIC } });
    await addAccount(node, 'oauth-pub', 'correct horse battery staple');
    const accounts = new AccountRepository(node.couch, node.names);
    const account = await accounts.find('oauth-pub');
    const issued = newOAuthCredential('oauth-pub', 'test', new Date().toISOString());
    await accounts.update({ ...account!, oauth: [issued.record] });
    await settled(node);
    credentials = issued.shown;
  });
  after(async () => { await node?.stop(); });

  it('publishes with HMAC-SHA1 and a body hash, as the account; the same request again is a replay (401)', async () => {
    const body = documents();
    const [first, again] = await publishAs({ times: 2 }, body);
    expect(ok(first), `${first?.body} ${node.logs.filter((line) => /"level":50/.test(line)).join('\n')}`).to.equal(true);
    expect(again?.status).to.equal(401);
    expect(JSON.parse(again?.body ?? '{}')).to.include({ OK: false });
    expect(again?.body).to.contain('replayed request');
    const id = (JSON.parse(body) as { documents: { doc_ID: string }[] }).documents[0]?.doc_ID as string;
    const { body: obtained } = await getJson(`${node.url}/obtain?request_ID=${id}&by_doc_ID=T`);
    expect((obtained.documents as { document: unknown[] | null }[])[0]?.document).to.have.length(1);
  });

  it('HMAC-SHA256, and a URL signed as the client reached it (not PUBLIC_URL), are accepted too', async () => {
    expect(ok((await publishAs({ signature_method: 'HMAC-SHA256' }))[0])).to.equal(true);
    expect(ok((await publishAs({ signed_url: `${node.url}/publish` }))[0])).to.equal(true);
    expect(ok((await publishAs({ signed_url: `${PUBLIC}/publish` }))[0])).to.equal(true);
  });

  it('refuses a swapped body, a wrong secret, an old timestamp and another URL, saying why, and stores nothing', async () => {
    const before = (await getJson(`${node.url}/status`)).body.store as { doc_count: number };
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ sent_body: documents() }, /not the one its signature covers \(oauth_body_hash\)/],
      [{ consumer_secret: 'not-the-secret' }, /signature does not match this request \(POST http:\/\/lr\.example\.org\/node\/publish\)/],
      [{ timestamp: String(Math.floor(Date.now() / 1000) - 3600) }, /oauth_timestamp is more than 300 s from this node's clock/],
      [{ signed_url: 'http://elsewhere.example.org/publish' }, /signature does not match/],
      [{ consumer_key: 'nobody' }, /no such consumer key and token/],
    ];
    for (const [change, reason] of refusals) {
      const [answer] = await publishAs(change);
      expect(answer?.status, JSON.stringify(change)).to.equal(401);
      expect(JSON.parse(answer?.body ?? '{}').error, JSON.stringify(change)).to.match(reason);
    }
    expect(((await getJson(`${node.url}/status`)).body.store as { doc_count: number }).doc_count).to.equal(before.doc_count);
  });

  it('deposits by SWORD (201 Atom entry); a swapped body is a sword:error, nothing stored', async () => {
    const body = JSON.stringify({ ...nsdlDocs(1)[0], doc_ID: 'oauth-sword-1' });
    const [created] = await oauthRequest({ url: `${node.url}/swordpub`, body, ...credentials });
    expect(created?.status, created?.body).to.equal(201);
    expect(created?.body).to.contain('<entry');
    const [swapped] = await oauthRequest({ url: `${node.url}/swordpub`, body, sent_body: JSON.stringify({ ...nsdlDocs(1)[0], doc_ID: 'oauth-sword-2' }), ...credentials });
    expect(swapped?.status).to.equal(401);
    expect(swapped?.body).to.contain('sword:error').and.contain('oauth_body_hash');
    const { body: obtained } = await getJson(`${node.url}/obtain?request_ID=oauth-sword-2&by_doc_ID=T`);
    expect((obtained.documents as { document: unknown }[])[0]?.document).to.equal(null);
  });

  it('takes the schemes the service description lists: Basic refused with oauth only, OAuth refused with basicauth only', async () => {
    const setAuthz = async (authz: string[]): Promise<void> => {
      await node.deps.nodes.reconcileNodeDoc('publish:Basic Publish service', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), service_auth: { service_authz: authz, service_key: false, service_https: false } }));
      await settled(node);
    };
    const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_auth: { service_authz: string[] } }[];
    expect(services.find((s) => s.service_name === 'Basic Publish')?.service_auth.service_authz).to.deep.equal(['basicauth', 'oauth']);
    const basic = { authorization: `Basic ${Buffer.from('oauth-pub:correct horse battery staple').toString('base64')}`, 'content-type': 'application/json' };
    try {
      await setAuthz(['oauth']);
      const refused = await fetch(`${node.url}/publish`, { method: 'POST', headers: basic, body: documents() });
      expect(refused.status).to.equal(401);
      expect(((await refused.json()) as { error: string }).error).to.contain('takes OAuth 1.0 signatures only');
      expect(ok((await publishAs())[0])).to.equal(true);
      await setAuthz(['basicauth']);
      const [oauth] = await publishAs();
      expect(oauth?.status).to.equal(401);
      expect(oauth?.body).to.contain('does not list oauth');
      expect((await fetch(`${node.url}/publish`, { method: 'POST', headers: basic, body: documents() })).status).to.equal(200);
    } finally {
      await setAuthz(['basicauth', 'oauth']);
    }
  });

  it('/distribute takes the schemes its description lists too, and never none', async () => {
    // It took any scheme whatever its description said (an audit's finding, session 34).
    await addAccount(node, 'oauth-ops', 'network phrase 4 ops', 'network_admin');
    const setAuthz = async (authz: string[]): Promise<void> => {
      await node.deps.nodes.reconcileNodeDoc('distribute:Resource Data Distribution service', (existing) => ({ ...(existing as Record<string, unknown> & { _id: string }), service_auth: { service_authz: authz, service_key: false, service_https: false } }));
      await settled(node);
    };
    const basic = { authorization: `Basic ${Buffer.from('oauth-ops:network phrase 4 ops').toString('base64')}` };
    try {
      await setAuthz(['oauth']);
      const refused = await fetch(`${node.url}/distribute`, { method: 'POST', headers: basic });
      expect(refused.status).to.equal(401);
      expect(((await refused.json()) as { error: string }).error).to.contain('takes OAuth 1.0 signatures only');
      // `none` (the original node's default for it) still asks for a network operator's credentials.
      await setAuthz(['none']);
      expect((await fetch(`${node.url}/distribute`, { method: 'POST' })).status).to.equal(401);
      const taken = await fetch(`${node.url}/distribute`, { method: 'POST', headers: basic });
      expect(taken.status, await taken.text()).to.be.oneOf([200, 500]);
    } finally {
      await setAuthz(['basicauth']);
    }
  });

  it('a disabled account and a revoked token are refused', async () => {
    const accounts = new AccountRepository(node.couch, node.names);
    const account = (await accounts.find('oauth-pub'))!;
    await accounts.update({ ...account, disabled: true });
    await settled(node);
    expect((await publishAs())[0]?.status).to.equal(401);
    const disabled = (await accounts.find('oauth-pub'))!;
    await accounts.update({ ...disabled, disabled: false, oauth: [] });
    await settled(node);
    const [revoked] = await publishAs();
    expect(revoked?.status).to.equal(401);
    expect(revoked?.body).to.contain('no such consumer key and token');
  });

  it('is not taken where distribution authenticates (the inbound endpoint)', async () => {
    const [answer] = await oauthRequest({ url: `${node.url}/incoming/`, method: 'GET', body: null, ...credentials });
    expect(answer?.status).to.equal(401);
  });
});
