// Every connection in this file goes to 127.0.0.1 only. Other addresses appear solely as
// values that must be refused before any connection, and host names are resolved by an
// injected resolver (the system resolver is never asked; see the dns.lookup guard).
import dns from 'node:dns';
import fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { isIP, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import {
  classifyAddress,
  createSafeFetcher,
  isPublicAddress,
  type SafeFetchResult,
  type SafeFetcherOptions,
} from '../../../src/net/safe-fetch.js';
import { pinnedLookup, type ResolvedAddress } from '../../../src/net/host-resolution.js';
import { runProgram } from '../../support/programs.js';

const LOOPBACK = '127.0.0.1';

function expectFailure(result: SafeFetchResult, code: string): void {
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  if (!result.ok) expect(result.code, result.reason).to.equal(code);
}

describe('safe fetch', () => {
  let server: http.Server;
  let base: string;
  let port: number;
  const seen: { url: string; host: string | undefined; headers: http.IncomingHttpHeaders }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', host: req.headers.host, headers: req.headers });
      const url = new URL(req.url ?? '/', 'http://placeholder');
      switch (url.pathname) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('héllo');
          return;
        case '/latin1':
          res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
          res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
          return;
        case '/latin1-typed':
          res.writeHead(200, { 'content-type': url.searchParams.get('type') ?? '' });
          res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
          return;
        case '/no-type':
          res.writeHead(200);
          res.end('plain');
          return;
        case '/sized': {
          const n = Number(url.searchParams.get('n') ?? '0');
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(n) });
          res.end('x'.repeat(n));
          return;
        }
        case '/chunked': {
          // No content-length: the size is only known while streaming.
          res.writeHead(200, { 'content-type': 'text/plain' });
          let sent = 0;
          const timer = setInterval(() => {
            if (sent >= 100_000 || res.destroyed) {
              clearInterval(timer);
              res.end();
              return;
            }
            res.write('y'.repeat(1000));
            sent += 1000;
          }, 1);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/hang':
          return; // never answers
        case '/slow-body': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const timer = setInterval(() => res.write('.'), 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/gzip':
          res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          res.end(gzipSync('compressed'));
          return;
        case '/status': {
          res.writeHead(Number(url.searchParams.get('code') ?? '500'), { 'content-type': 'text/plain' });
          res.end('status body');
          return;
        }
        case '/redirect': {
          res.writeHead(Number(url.searchParams.get('code') ?? '302'), { location: url.searchParams.get('to') ?? '/ok' });
          res.end();
          return;
        }
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          res.end();
          return;
        default:
          res.writeHead(404);
          res.end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://${LOOPBACK}:${port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  // Guard: the system resolver must never be used by the code under test.
  let originalLookup: typeof dns.lookup;
  const systemLookups: string[] = [];
  beforeEach(() => {
    systemLookups.length = 0;
    originalLookup = dns.lookup;
    const original = originalLookup;
    const guard = ((hostname: string, ...rest: unknown[]) => {
      // IP literals never leave the process (server.listen uses them): pass them through.
      if (isIP(hostname) !== 0) return (original as (...args: unknown[]) => void)(hostname, ...rest);
      systemLookups.push(hostname);
      const callback = rest[rest.length - 1] as (err: Error) => void;
      process.nextTick(() => callback(Object.assign(new Error(`system lookup of ${hostname} blocked in tests`), { code: 'ENOTFOUND' })));
    }) as unknown as typeof dns.lookup;
    dns.lookup = guard;
  });
  afterEach(() => {
    dns.lookup = originalLookup;
    expect(systemLookups, 'system DNS lookups').to.deep.equal([]);
  });

  const defaults: SafeFetcherOptions = { allowPrivate: false, timeoutMs: 2000, maxBytes: 10_000 };
  /** Only 127.0.0.1 may be contacted; everything else keeps the default classification. */
  const onlyLoopbackServer = (address: string): boolean => address === LOOPBACK || isPublicAddress(address);

  /** A resolver answering from a fixed table, counting calls. */
  function tableResolver(table: Record<string, string[]>): { resolve: (h: string) => Promise<ResolvedAddress[]>; calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      resolve: async (hostname: string) => {
        calls.push(hostname);
        const addresses = table[hostname];
        if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as ResolvedAddress);
      },
    };
  }

  describe('address checks', () => {
    it('refuses the loopback test server by default, without connecting', async () => {
      const fetcher = createSafeFetcher(defaults);
      expectFailure(await fetcher.fetchText(`${base}/ok`), 'forbidden-address');
      expect(seen).to.have.length(0);
    });

    it('allows it with allowPrivate', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true });
      const result = await fetcher.fetchText(`${base}/ok`);
      expect(result).to.deep.include({ ok: true, text: 'héllo', contentType: 'text/plain; charset=utf-8', status: 200 });
      expect(seen).to.have.length(1);
      expect(seen[0]?.headers['accept-encoding']).to.equal('identity');
    });

    it('refuses literal non-public addresses of every kind without connecting', async () => {
      const fetcher = createSafeFetcher(defaults);
      const urls = [
        'http://127.0.0.1/',
        'http://127.1.2.3:8080/',
        'http://0.0.0.0/',
        'http://10.0.0.1/',
        'http://172.16.5.4/',
        'http://192.168.1.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://100.64.0.1/',
        'http://224.0.0.1/',
        'http://255.255.255.255/',
        'http://[::1]/',
        'http://[::]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://[fd00::1]/',
        'http://[fe80::1]/',
        'http://[ff02::1]/',
        'http://2130706433/', // 127.0.0.1 as a single number: the URL parser normalises it
        'http://0x7f.1/',
        'http://017700000001/',
        'https://127.0.0.1/',
      ];
      for (const url of urls) expectFailure(await fetcher.fetchText(url), 'forbidden-address');
    });

    it('refuses host names that resolve to a non-public address, even if only one of them does', async () => {
      const table = {
        'intranet.invalid': ['192.168.1.10'],
        'metadata.invalid': ['169.254.169.254'],
        // The first answer is the (allowed) test server: a fetcher that checked only the
        // address it connects to would reach the server and show up in `seen`.
        'mixed.invalid': [LOOPBACK, '10.1.1.1'],
        'mapped.invalid': ['::ffff:10.0.0.1'],
        'v6local.invalid': ['fe80::1'],
      };
      const { resolve, calls } = tableResolver(table);
      const fetcher = createSafeFetcher({ ...defaults, resolve, isAllowedAddress: onlyLoopbackServer });
      for (const host of Object.keys(table)) {
        expectFailure(await fetcher.fetchText(`http://${host}:${port}/ok`), 'forbidden-address');
      }
      expect(calls).to.deep.equal(Object.keys(table));
      expect(seen).to.have.length(0);
    });

    it('reports resolver failures', async () => {
      const { resolve } = tableResolver({ 'empty.invalid': [] });
      const fetcher = createSafeFetcher({ ...defaults, resolve });
      expectFailure(await fetcher.fetchText('http://unknown.invalid/'), 'dns-failure');
      expectFailure(await fetcher.fetchText('http://empty.invalid/'), 'dns-failure');
    });

    it('connects to the checked address, resolving the name once (no DNS rebinding)', async () => {
      // The first answer is the allowed test server; any later answer would be a private
      // address. The request must reach the server using the first answer only.
      let call = 0;
      const resolve = async (): Promise<ResolvedAddress[]> => {
        call++;
        return call === 1 ? [{ address: LOOPBACK, family: 4 }] : [{ address: '10.0.0.1', family: 4 }];
      };
      const fetcher = createSafeFetcher({ ...defaults, resolve, isAllowedAddress: onlyLoopbackServer });
      const result = await fetcher.fetchText(`http://pinned.invalid:${port}/ok`);
      expect(result).to.include({ ok: true, text: 'héllo' });
      expect(call).to.equal(1);
      expect(seen[0]?.host).to.equal(`pinned.invalid:${port}`);
    });

    it('pinnedLookup answers with the pinned address in both lookup styles', () => {
      const lookup = pinnedLookup('192.0.2.7', 4);
      let single: unknown[] = [];
      lookup('anything.invalid', {}, (...args: unknown[]) => (single = args));
      expect(single).to.deep.equal([null, '192.0.2.7', 4]);
      let all: unknown[] = [];
      lookup('anything.invalid', { all: true }, (...args: unknown[]) => (all = args));
      expect(all).to.deep.equal([null, [{ address: '192.0.2.7', family: 4 }]]);
    });

    it('the dns.lookup guard does catch system lookups (so the guard above is meaningful)', async () => {
      await new Promise<void>((resolve) => {
        const req = http.get({ hostname: 'guard-check.invalid', port, agent: false });
        req.on('error', () => resolve());
      });
      expect(systemLookups).to.deep.equal(['guard-check.invalid']);
      systemLookups.length = 0;
    });
  });

  describe('schemes and URLs', () => {
    it('refuses other schemes and malformed URLs', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true });
      for (const url of [
        'ftp://127.0.0.1/x',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'data:text/plain,hello',
        'gopher://127.0.0.1:70/',
        'ws://127.0.0.1/',
      ]) {
        expectFailure(await fetcher.fetchText(url), 'scheme-not-allowed');
      }
      expectFailure(await fetcher.fetchText('not a url'), 'invalid-url');
      expectFailure(await fetcher.fetchText('/relative/path'), 'invalid-url');
      expect(seen).to.have.length(0);
    });

    it('honours allowedSchemes', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true, allowedSchemes: ['https:'] });
      expectFailure(await fetcher.fetchText(`${base}/ok`), 'scheme-not-allowed');
    });

    it('refuses URLs carrying credentials', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true });
      expectFailure(await fetcher.fetchText(`http://user:pw@${LOOPBACK}:${port}/ok`), 'credentials-in-url');
    });

    it('rejects invalid options', () => {
      expect(() => createSafeFetcher({ ...defaults, timeoutMs: 0 })).to.throw(RangeError);
      expect(() => createSafeFetcher({ ...defaults, maxBytes: -1 })).to.throw(RangeError);
    });
  });

  describe('size limit', () => {
    const fetcher = (): ReturnType<typeof createSafeFetcher> =>
      createSafeFetcher({ ...defaults, allowPrivate: true, maxBytes: 1000 });

    it('accepts a body of exactly maxBytes', async () => {
      const result = await fetcher().fetchText(`${base}/sized?n=1000`);
      expect(result.ok).to.equal(true);
      if (result.ok) expect(result.text).to.have.length(1000);
    });

    it('refuses a declared Content-Length above maxBytes', async () => {
      expectFailure(await fetcher().fetchText(`${base}/sized?n=1001`), 'too-large');
    });

    it('aborts a streamed body once it exceeds maxBytes', async () => {
      const started = Date.now();
      expectFailure(await fetcher().fetchText(`${base}/chunked`), 'too-large');
      expect(Date.now() - started).to.be.lessThan(1500);
    });
  });

  describe('timeout', () => {
    it('gives up on a server that never answers', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true, timeoutMs: 200 });
      const started = Date.now();
      expectFailure(await fetcher.fetchText(`${base}/hang`), 'timeout');
      const elapsed = Date.now() - started;
      expect(elapsed).to.be.within(150, 1500);
    });

    it('covers the whole body, not just the first byte', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true, timeoutMs: 300, maxBytes: 1_000_000 });
      const started = Date.now();
      expectFailure(await fetcher.fetchText(`${base}/slow-body`), 'timeout');
      expect(Date.now() - started).to.be.lessThan(1500);
    });

    it('covers name resolution', async () => {
      const resolve = (): Promise<ResolvedAddress[]> => new Promise(() => undefined);
      const fetcher = createSafeFetcher({ ...defaults, resolve, timeoutMs: 150 });
      expectFailure(await fetcher.fetchText('http://slow-dns.invalid/'), 'timeout');
    });
  });

  describe('redirects', () => {
    const redirectTo = (to: string, code = 302): string => `${base}/redirect?code=${code}&to=${encodeURIComponent(to)}`;

    it('follows a redirect to an allowed address, re-checking it', async () => {
      const fetcher = createSafeFetcher({ ...defaults, isAllowedAddress: onlyLoopbackServer });
      for (const code of [301, 302, 303, 307, 308]) {
        const result = await fetcher.fetchText(redirectTo('/ok', code));
        expect(result, String(code)).to.include({ ok: true, text: 'héllo', url: `${base}/ok` });
      }
    });

    it('refuses a redirect to a private address, without connecting to it', async () => {
      const { resolve } = tableResolver({ 'intranet.invalid': ['192.168.1.10'] });
      const fetcher = createSafeFetcher({ ...defaults, resolve, isAllowedAddress: onlyLoopbackServer });
      for (const target of [
        'http://10.0.0.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]:80/',
        'http://[::ffff:192.168.0.1]/',
        'http://0.0.0.0/',
        'http://intranet.invalid/admin',
      ]) {
        seen.length = 0;
        expectFailure(await fetcher.fetchText(redirectTo(target)), 'forbidden-address');
        expect(seen, target).to.have.length(1); // only the redirecting request
      }
    });

    it('refuses a redirect to another scheme', async () => {
      const fetcher = createSafeFetcher({ ...defaults, isAllowedAddress: onlyLoopbackServer });
      expectFailure(await fetcher.fetchText(redirectTo('file:///etc/passwd')), 'scheme-not-allowed');
      expectFailure(await fetcher.fetchText(redirectTo('ftp://127.0.0.1/')), 'scheme-not-allowed');
    });

    it('stops after maxRedirects', async () => {
      const fetcher = createSafeFetcher({ ...defaults, isAllowedAddress: onlyLoopbackServer, maxRedirects: 3 });
      expectFailure(await fetcher.fetchText(`${base}/loop`), 'too-many-redirects');
      expect(seen).to.have.length(4);
    });

    it('does not follow redirects with maxRedirects: 0', async () => {
      const fetcher = createSafeFetcher({ ...defaults, isAllowedAddress: onlyLoopbackServer, maxRedirects: 0 });
      const result = await fetcher.fetchText(redirectTo('/ok'));
      expectFailure(result, 'redirect-not-followed');
      if (!result.ok) expect(result.status).to.equal(302);
      expect(seen).to.have.length(1);
    });
  });

  describe('responses', () => {
    const fetcher = (): ReturnType<typeof createSafeFetcher> => createSafeFetcher({ ...defaults, allowPrivate: true });

    it('reports non-2xx statuses', async () => {
      const result = await fetcher().fetchText(`${base}/status?code=404`);
      expectFailure(result, 'http-status');
      if (!result.ok) expect(result.status).to.equal(404);
      expectFailure(await fetcher().fetchText(`${base}/status?code=500`), 'http-status');
    });

    it('decodes the declared charset and reports a missing content type as null', async () => {
      expect(await fetcher().fetchText(`${base}/latin1`)).to.include({ ok: true, text: 'café' });
      expect(await fetcher().fetchText(`${base}/no-type`)).to.include({ ok: true, text: 'plain', contentType: null });
    });

    it('reads the charset parameter as RFC 9110 puts it: any case, quoted or not, after other parameters, never from inside another quoted value', async () => {
      for (const type of ['text/plain;CHARSET=ISO-8859-1', 'text/plain; format=flowed; charset="iso-8859-1"', 'text/plain; title="a;charset=utf-8"; charset=iso-8859-1']) {
        expect(await fetcher().fetchText(`${base}/latin1-typed?type=${encodeURIComponent(type)}`), type).to.include({ ok: true, text: 'café' });
      }
      // An empty or unknown charset: UTF-8, as before (é is not valid UTF-8 here, so U+FFFD).
      for (const type of ['text/plain; charset=', 'text/plain; charset=no-such-charset']) {
        expect(await fetcher().fetchText(`${base}/latin1-typed?type=${encodeURIComponent(type)}`), type).to.include({ ok: true, text: 'caf\uFFFD' });
      }
    });

    it('refuses compressed bodies', async () => {
      expectFailure(await fetcher().fetchText(`${base}/gzip`), 'unsupported-encoding');
    });

    it('reports connection failures', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, LOOPBACK, resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expectFailure(await fetcher().fetchText(`http://${LOOPBACK}:${closedPort}/`), 'network-error');
    });
  });

  describe('a host with several addresses', () => {
    it('connects to the next address when one refuses the connection (localhost as ::1 first, a server on IPv4)', async () => {
      // 127.0.0.2 is loopback too, where nothing listens on the test server's port: refused.
      const { resolve } = tableResolver({ 'two.test': ['127.0.0.2', LOOPBACK] });
      const fetcher = createSafeFetcher({ ...defaults, resolve, allowPrivate: true });
      expect(await fetcher.fetchText(`http://two.test:${port}/ok`)).to.include({ ok: true, text: 'héllo' });
      expect(seen).to.have.length(1);
    });

    it('fails when none connects, and never tries an address the checks refuse', async () => {
      const refused = tableResolver({ 'none.test': ['127.0.0.2', '127.0.0.3'] });
      expectFailure(await createSafeFetcher({ ...defaults, resolve: refused.resolve, allowPrivate: true }).fetchText(`http://none.test:${port}/ok`), 'network-error');
      const mixed = tableResolver({ 'mixed.test': ['127.0.0.2', LOOPBACK] });
      expectFailure(await createSafeFetcher({ ...defaults, resolve: mixed.resolve, isAllowedAddress: onlyLoopbackServer }).fetchText(`http://mixed.test:${port}/ok`), 'forbidden-address');
      expect(seen).to.have.length(0);
    });
  });

  describe('for a caller that reads error answers with credentials (distribution)', () => {
    const secret = 'Basic c2VjcmV0OnBhc3N3b3Jk';
    const redirectTo = (to: string): string => `/redirect?code=302&to=${encodeURIComponent(to)}`;

    it('sends the request\'s Authorization header, and never puts it in a failure reason', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true });
      expect(await fetcher.fetchText(`${base}/ok`, { authorization: secret })).to.include({ ok: true, text: 'héllo' });
      expect(seen[0]?.headers.authorization).to.equal(secret);
      const failed = await createSafeFetcher({ ...defaults, allowPrivate: true, maxBytes: 10 }).fetchText(`${base}/sized?n=100`, { authorization: secret });
      expectFailure(failed, 'too-large');
      expect(JSON.stringify(failed)).to.not.contain(secret);
      await fetcher.fetchText(`${base}/ok`);
      expect(seen[2]?.headers, 'a request without one').to.not.have.property('authorization');
    });

    it('keeps it on a redirect within the origin, and drops it for good at another origin (Fetch standard, HTTP-redirect fetch)', async () => {
      const { resolve } = tableResolver({ 'peer.test': [LOOPBACK] });
      const fetcher = createSafeFetcher({ ...defaults, resolve, isAllowedAddress: onlyLoopbackServer });
      expect(await fetcher.fetchText(`${base}${redirectTo('/ok')}`, { authorization: secret })).to.include({ ok: true });
      expect(seen.map((request) => request.headers.authorization)).to.deep.equal([secret, secret]);
      seen.length = 0;
      // peer.test → 127.0.0.1 (another origin) → peer.test again: the header is not sent back either.
      const back = `http://peer.test:${port}/ok`;
      expect(await fetcher.fetchText(`http://peer.test:${port}${redirectTo(`${base}${redirectTo(back)}`)}`, { authorization: secret })).to.include({ ok: true, url: back });
      expect(seen.map((request) => request.headers.authorization)).to.deep.equal([secret, undefined, undefined]);
    });

    it('with acceptAnyStatus, returns an error answer with its status and text; a redirect is still a redirect', async () => {
      const fetcher = createSafeFetcher({ ...defaults, allowPrivate: true, maxRedirects: 0, acceptAnyStatus: true });
      for (const code of [401, 403, 500]) {
        expect(await fetcher.fetchText(`${base}/status?code=${code}`), String(code)).to.include({ ok: true, status: code, text: 'status body' });
      }
      expectFailure(await fetcher.fetchText(`${base}${redirectTo('/ok')}`), 'redirect-not-followed');
    });
  });

  describe('https', () => {
    // A self-signed certificate for files.test, made for this run; the fetcher does not trust it.
    let tls: https.Server;
    const servernames: string[] = [];
    before(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-fetch-tls-'));
      const made = runProgram('openssl', 'openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`,
        '-days', '1', '-subj', '/CN=files.test', '-addext', 'subjectAltName=DNS:files.test']);
      if (made.status !== 0) throw new Error(`openssl is needed for this test: ${String(made.error ?? made.stderr)}`);
      tls = https.createServer({
        key: fs.readFileSync(`${dir}/key.pem`),
        cert: fs.readFileSync(`${dir}/cert.pem`),
        SNICallback: (name, callback) => { servernames.push(name); callback(null); },
      }, (_req, res) => res.end('secret'));
      tls.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve) => tls.listen(0, LOOPBACK, resolve));
      fs.rmSync(dir, { recursive: true });
    });
    after(() => tls.close());

    it('connects to the checked address but sends the host name as SNI and checks the certificate against it', async () => {
      const { resolve, calls } = tableResolver({ 'files.test': [LOOPBACK] });
      const fetcher = createSafeFetcher({ ...defaults, resolve, isAllowedAddress: onlyLoopbackServer });
      const result = await fetcher.fetchText(`https://files.test:${(tls.address() as AddressInfo).port}/`);
      expectFailure(result, 'network-error');
      if (!result.ok) expect(result.reason).to.match(/self[- ]signed certificate/);
      expect(calls).to.deep.equal(['files.test']);
      expect(servernames).to.deep.equal(['files.test']);
    });
  });

  describe('IP classification', () => {
    const table: [string, string][] = [
      // IPv4
      ['8.8.8.8', 'public'],
      ['1.1.1.1', 'public'],
      ['93.184.215.14', 'public'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'this-network'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['10.0.0.1', 'private'],
      ['10.255.255.255', 'private'],
      ['172.15.255.255', 'public'],
      ['172.16.0.0', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.0', 'public'],
      ['192.168.0.1', 'private'],
      ['192.169.0.1', 'public'],
      ['169.254.169.254', 'link-local'],
      ['169.253.0.1', 'public'],
      ['100.63.255.255', 'public'],
      ['100.64.0.0', 'cgnat'],
      ['100.127.255.255', 'cgnat'],
      ['100.128.0.0', 'public'],
      ['192.0.0.170', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['198.18.0.1', 'benchmarking'],
      ['198.19.255.255', 'benchmarking'],
      ['198.20.0.1', 'public'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'broadcast'],
      // IPv6
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['2001:4860:4860::8888', 'public'],
      ['2606:4700:4700::1111', 'public'],
      ['fc00::1', 'private'],
      ['fd12:3456:789a::1', 'private'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['febf::1', 'link-local'],
      ['fec0::1', 'private'],
      ['ff02::1', 'multicast'],
      ['ff05::2', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['2001::1', 'reserved'], // Teredo
      ['2001:2::1', 'benchmarking'],
      ['100::1', 'reserved'],
      ['1::', 'reserved'],
      ['4000::1', 'reserved'],
      // IPv4 embedded in IPv6
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::FFFF:7F00:0001', 'loopback'],
      ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.1.2.3', 'private'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:100.64.1.1', 'cgnat'],
      ['::ffff:0.0.0.0', 'unspecified'],
      ['::ffff:224.0.0.1', 'multicast'],
      ['::ffff:8.8.8.8', 'public'],
      ['::ffff:0:127.0.0.1', 'loopback'],
      ['::127.0.0.1', 'reserved'],
      ['::8.8.8.8', 'reserved'],
      ['64:ff9b::8.8.8.8', 'public'],
      ['64:ff9b::127.0.0.1', 'loopback'],
      ['64:ff9b::a00:1', 'private'],
      ['64:ff9b:1::1', 'private'],
      ['2002:7f00:1::1', 'loopback'],
      ['2002:c0a8:101::', 'private'],
      ['2002:808:808::1', 'public'],
      // not addresses
      ['localhost', 'invalid'],
      ['example.org', 'invalid'],
      ['', 'invalid'],
      ['1.2.3', 'invalid'],
      ['256.1.1.1', 'invalid'],
      ['1.2.3.4.5', 'invalid'],
      ['::ffff:1.2.3.256', 'invalid'],
      ['1:2:3:4:5:6:7:8:9', 'invalid'],
      ['gggg::1', 'invalid'],
    ];

    for (const [address, kind] of table) {
      it(`${address || '(empty)'} is ${kind}`, () => {
        expect(classifyAddress(address).kind).to.equal(kind);
        expect(isPublicAddress(address)).to.equal(kind === 'public');
      });
    }

    it('reports the family and the embedded IPv4 address', () => {
      expect(classifyAddress('8.8.8.8')).to.deep.equal({ kind: 'public', family: 4 });
      expect(classifyAddress('::ffff:10.0.0.1')).to.deep.equal({ kind: 'private', family: 6, embeddedIPv4: '10.0.0.1' });
      expect(classifyAddress('x')).to.deep.equal({ kind: 'invalid', family: 0 });
    });
  });
});
