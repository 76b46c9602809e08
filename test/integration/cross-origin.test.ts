/**
 * CORS_ORIGINS (src/http/cross-origin.ts): web pages of the named origins read the public read
 * services across origins, without credentials; nothing else answers another origin, and with
 * the default (off) nothing answers one at all.
 */
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';

const APP = 'https://app.example.org';

async function ask(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { status: response.status, headers: response.headers };
}

describe('cross-origin reads (CORS_ORIGINS)', function () {
  this.timeout(120000);
  let listed: TestNode;
  let any: TestNode;
  let off: TestNode;

  before(async () => {
    [listed, any, off] = await Promise.all([
      startTestNode({ env: { CORS_ORIGINS: `${APP},http://127.0.0.1:3000` } }),
      startTestNode({ env: { CORS_ORIGINS: '*' } }),
      startTestNode(),
    ]);
  });
  after(async () => { await Promise.all([listed, any, off].map((node) => node?.stop())); });

  it('a listed origin reads obtain, harvest, OAI-PMH, slice and the node endpoints; its own origin is named, never credentials', async () => {
    for (const path of ['/obtain', '/harvest/identify', '/OAI-PMH?verb=Identify', '/slice?any_tags=x', '/status', '/description', '/services', '/policy', '/pubkey']) {
      const { status, headers } = await ask(`${listed.url}${path}`, { headers: { origin: APP } });
      expect(status, path).to.equal(200);
      expect(headers.get('access-control-allow-origin'), path).to.equal(APP);
      expect(headers.get('vary'), path).to.match(/origin/i);
      expect(headers.get('access-control-allow-credentials'), path).to.equal(null);
    }
  });

  it('an error answer is readable by the page too (the protocol\'s own form)', async () => {
    const { status, headers } = await ask(`${listed.url}/obtain?bogus=1`, { headers: { origin: APP } });
    expect(status).to.equal(500);
    expect(headers.get('access-control-allow-origin')).to.equal(APP);
  });

  it('the preflight of a JSON POST to obtain is allowed; a preflight to publish is not', async () => {
    const preflight = { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } };
    const toObtain = await ask(`${listed.url}/obtain`, preflight);
    expect(toObtain.status).to.equal(204);
    expect(toObtain.headers.get('access-control-allow-origin')).to.equal(APP);
    expect(toObtain.headers.get('access-control-allow-methods')).to.equal('GET,HEAD,POST');
    expect(toObtain.headers.get('access-control-allow-headers')).to.equal('Content-Type');
    const toPublish = await ask(`${listed.url}/publish`, preflight);
    expect(toPublish.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('an origin not listed, a write service and a request without Origin get no CORS header', async () => {
    expect((await ask(`${listed.url}/obtain`, { headers: { origin: 'https://evil.example' } })).headers.get('access-control-allow-origin')).to.equal(null);
    const publish = await ask(`${listed.url}/publish`, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json' }, body: '{"documents":[]}' });
    expect(publish.status).to.equal(401);
    expect(publish.headers.get('access-control-allow-origin')).to.equal(null);
    for (const path of ['/distribute', '/destination', '/delete', '/swordservice', '/auth']) {
      expect((await ask(`${listed.url}${path}`, { headers: { origin: APP } })).headers.get('access-control-allow-origin'), path).to.equal(null);
    }
    expect((await ask(`${listed.url}/status`)).headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('* lets any origin read, answering *', async () => {
    const { headers } = await ask(`${any.url}/harvest/identify`, { headers: { origin: 'https://anywhere.example' } });
    expect(headers.get('access-control-allow-origin')).to.equal('*');
    expect(headers.get('access-control-allow-credentials')).to.equal(null);
  });

  it('a JSONP request (callback) is refused in each service\'s own form, saying CORS is how a page reads the node', async () => {
    const obtain = await (await fetch(`${off.url}/obtain?request_id=x&callback=cb`)).json() as { OK: boolean; error: string };
    const slice = await (await fetch(`${off.url}/slice?any_tags=x&callback=cb`)).json() as { OK: boolean; error: string };
    const harvest = await (await fetch(`${off.url}/harvest/identify?callback=cb`)).json() as { OK: boolean; error: string; message?: string };
    for (const [name, body] of [['obtain', obtain], ['slice', slice], ['harvest', harvest]] as const) {
      expect(body.OK, name).to.equal(false);
      expect(`${body.error} ${'message' in body ? body.message : ''}`, name).to.contain('JSONP is not served').and.contain('CORS_ORIGINS');
    }
  });

  it('off (the default): no origin is answered, and no Vary: Origin is added', async () => {
    const { status, headers } = await ask(`${off.url}/status`, { headers: { origin: APP } });
    expect(status).to.equal(200);
    expect(headers.get('access-control-allow-origin')).to.equal(null);
    expect(headers.get('vary') ?? '').to.not.match(/origin/i);
  });
});
