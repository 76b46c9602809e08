/**
 * src/http/first-request-timeout.ts on a bare Node server with a short timeout: a silent new
 * connection is closed; a request that arrives in time is answered however long it takes; a
 * kept-alive connection idle between requests, and headers sent slowly byte by byte, are not cut.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { boundFirstRequest } from '../../../src/http/first-request-timeout.js';

const TIMEOUT_MS = 300;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw connection: what it has received, and when it closed (ms after it opened). */
function connect(port: number): { socket: net.Socket; received: () => string; closedAfter: Promise<number> } {
  const opened = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk) => { text += String(chunk); });
  return { socket, received: () => text, closedAfter: new Promise((resolve) => socket.on('close', () => resolve(Date.now() - opened))) };
}

const answers = (text: string): number => text.match(/HTTP\/1\.1 200/g)?.length ?? 0;

describe('a new connection\'s first request (first-request-timeout)', () => {
  let server: http.Server;
  let port: number;
  before(async () => {
    // Each request is answered after ?wait= ms.
    server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      setTimeout(() => res.end('ok'), Number(new URL(req.url ?? '/', 'http://node').searchParams.get('wait') ?? 0));
    });
    boundFirstRequest(server, TIMEOUT_MS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => { server.closeAllConnections(); server.close(); });

  it('closes a connection that sends nothing', async () => {
    const silent = connect(port);
    const closedAfter = await Promise.race([silent.closedAfter, sleep(TIMEOUT_MS * 10).then(() => Infinity)]);
    expect(closedAfter).to.be.within(TIMEOUT_MS - 50, TIMEOUT_MS + 1000);
    expect(silent.received()).to.equal('');
  });

  it('answers a request that takes longer than the timeout, and keeps the connection alive past it between requests', async () => {
    const client = connect(port);
    client.socket.write(`GET /?wait=${TIMEOUT_MS * 3} HTTP/1.1\r\nHost: node\r\n\r\n`);
    await sleep(TIMEOUT_MS * 4);
    expect(answers(client.received())).to.equal(1);
    // Idle for several timeouts between requests: Node's keep-alive (65 s) governs now.
    await sleep(TIMEOUT_MS * 3);
    client.socket.write('GET / HTTP/1.1\r\nHost: node\r\n\r\n');
    await sleep(TIMEOUT_MS);
    expect(answers(client.received())).to.equal(2);
    expect(client.socket.destroyed).to.equal(false);
    client.socket.destroy();
  });

  it('waits for headers sent slowly, each byte within the timeout', async () => {
    const client = connect(port);
    const request = 'GET / HTTP/1.1\r\nHost: node\r\nX-Slow: yes\r\n\r\n';
    // In all several times the timeout, each gap a third of it.
    for (const byte of request) {
      client.socket.write(byte);
      await sleep(TIMEOUT_MS / 3);
    }
    await sleep(TIMEOUT_MS / 2);
    expect(answers(client.received())).to.equal(1);
    client.socket.destroy();
  });
});
