/**
 * A connection that never sends a request is closed after 20 s (src/http/first-request-timeout.ts).
 * An audit found such sockets held up to 96 s: the header timeout must outlast the 65 s keep-alive
 * CouchDB's replicator relies on, and Node checked it every 30 s. Kept-alive connections between
 * requests keep their 65 s.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';
import { FIRST_REQUEST_TIMEOUT_MS } from '../../src/http/first-request-timeout.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('connections that send nothing', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => { node = await startTestNode(); });
  after(async () => { await node?.stop(); });

  it('are closed after 20 s, while a kept-alive connection idle as long is still served', async () => {
    const { hostname, port } = new URL(node.url);
    const opened = Date.now();
    const silent = net.connect(Number(port), hostname);
    const closedAfter = new Promise<number>((resolve) => silent.on('close', () => resolve(Date.now() - opened)));
    // A client that keeps its connection: one request now, the next after the silent socket is gone.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ status: number; socket: unknown }> => new Promise((resolve, reject) => {
      http.get(`${node.url}/status`, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, socket: response.socket }));
      }).on('error', reject);
    });
    const first = await get();
    expect(first.status).to.equal(200);
    const closed = await Promise.race([closedAfter, sleep(FIRST_REQUEST_TIMEOUT_MS + 15000).then(() => Infinity)]);
    expect(closed).to.be.within(FIRST_REQUEST_TIMEOUT_MS - 100, FIRST_REQUEST_TIMEOUT_MS + 5000);
    const second = await get();
    expect(second.status).to.equal(200);
    expect(second.socket, 'the same kept-alive connection').to.equal(first.socket);
    agent.destroy();
  });
});
