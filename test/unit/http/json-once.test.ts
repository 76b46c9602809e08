// A JSON answer is serialised once, whether it is compressed or not (src/http/json-once.ts):
// koa-compress reads the body's length for its threshold, and koa's length getter serialised an
// object body for that, before it was serialised again to be sent. The app here is the node's own
// middleware order (compression, then the serialiser), over real HTTP.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { responseCompression } from '../../../src/http/compression.js';
import { serialiseJsonOnce } from '../../../src/http/json-once.js';
import type { NodeState } from '../../../src/http/context.js';

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http.request({ host: '127.0.0.1', port, path, headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

describe('JSON answers are serialised once (json-once.ts)', () => {
  let server: http.Server;
  let port: number;
  let serialised = 0;
  /** A body that counts how often it is serialised: JSON.stringify calls toJSON each time. */
  const counted = (records: number): object => ({ toJSON: () => { serialised += 1; return { OK: true, records: Array.from({ length: records }, (_, i) => ({ doc_ID: `doc-${i}`, text: 'x'.repeat(100) })) }; } });

  before(async () => {
    const app = new Koa<NodeState>();
    app.use(responseCompression('/incoming', 1));
    app.use(serialiseJsonOnce());
    app.use(async (ctx) => {
      if (ctx.path === '/created') { ctx.status = 201; ctx.body = counted(1); return; }
      if (ctx.path === '/text') { ctx.type = 'text/plain'; ctx.body = 'plain'; return; }
      if (ctx.path === '/unserialisable') { ctx.body = { toJSON: () => { throw new RangeError('Invalid string length'); } }; return; }
      ctx.body = counted(Number(ctx.query.records ?? 50));
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => { serialised = 0; });

  it('once when sent as it is, with its length and JSON type', async () => {
    const answer = await get(port, '/page?records=50');
    expect(serialised).to.equal(1);
    expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(Number(answer.headers['content-length'])).to.equal(answer.body.length);
    expect((JSON.parse(answer.body.toString('utf8')) as { records: unknown[] }).records).to.have.length(50);
  });

  it('once when compressed', async () => {
    const answer = await get(port, '/page?records=50', { 'accept-encoding': 'gzip' });
    expect(answer.headers['content-encoding']).to.equal('gzip');
    expect(serialised).to.equal(1);
    expect((JSON.parse(gunzipSync(answer.body).toString('utf8')) as { records: unknown[] }).records).to.have.length(50);
  });

  it('once when below the compression threshold, keeping the status the route set', async () => {
    const answer = await get(port, '/created', { 'accept-encoding': 'gzip' });
    expect(serialised).to.equal(1);
    expect(answer.status).to.equal(201);
    expect(answer.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(answer.body.toString('utf8'))).to.deep.equal({ OK: true, records: [{ doc_ID: 'doc-0', text: 'x'.repeat(100) }] });
  });

  it('a HEAD answer says the length of the JSON text', async () => {
    const get1 = await get(port, '/page?records=3');
    const head = await get(port, '/page?records=3', {}, 'HEAD');
    expect(head.body.length).to.equal(0);
    expect(head.headers['content-length']).to.equal(String(get1.body.length));
  });

  it('an answer JSON cannot hold ends in the JSON error form, not koa\'s text page', async () => {
    const answer = await get(port, '/unserialisable', { 'accept-encoding': 'gzip' });
    expect(answer.status).to.equal(500);
    expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(JSON.parse(answer.body.toString('utf8'))).to.deep.equal({ OK: false, error: 'internal error: the answer is too large to send' });
  });

  it('leaves other bodies alone', async () => {
    const answer = await get(port, '/text');
    expect(answer.headers['content-type']).to.equal('text/plain; charset=utf-8');
    expect(answer.body.toString('utf8')).to.equal('plain');
  });
});
