/**
 * The node holds at most half its open-files limit of client connections
 * (src/http/connection-limit.ts). Under `ulimit -n 256`, 300 idle sockets took every descriptor:
 * the node could no longer reach its own store, and a request on a connection it already had
 * was answered 503 (an audit). With the limit the sockets past it are closed at once, the store
 * stays reachable, and the refusals are logged.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { startMain, waitForLog, type NodeProcess } from '../support/process.js';
import { tempDir } from '../support/node.js';
import { requireProgram } from '../support/programs.js';

/** GET over `agent` (one kept-alive connection): the status. */
function get(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, timeout: 30000 }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode ?? 0)); });
    request.on('error', reject);
    request.on('timeout', () => request.destroy(new Error('no answer in 30 s')));
  });
}

describe('connections past the open-files limit', function () {
  this.timeout(120000);
  let node: NodeProcess | undefined;
  const idle: net.Socket[] = [];
  before(async () => {
    requireProgram('prlimit');
    node = await startMain({ DATA_DIR: tempDir() }, [], 60000, false, ['prlimit', '--nofile=256:256']);
  });
  after(() => {
    for (const socket of idle) socket.destroy();
    node?.child.kill('SIGTERM');
  });

  it('are closed at once, and the node still reaches its store for the connections it holds', async () => {
    const url = (node as NodeProcess).url;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const read = `${url}/obtain?by_doc_ID=true&request_ID=nothing-here`;
    const before = await get(read, agent);
    expect(before).to.not.equal(503);
    // 300 sockets that never send a byte, as a slow or hostile client holds them.
    const { hostname, port } = new URL(url);
    await Promise.all(Array.from({ length: 300 }, () => new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => resolve());
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      idle.push(socket);
    })));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const open = idle.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
    expect(open, 'idle sockets the node kept').to.be.at.most(96);
    // A read on the connection the client already had reaches the store.
    expect(await get(read, agent)).to.equal(before);
    const warning = await waitForLog(node as NodeProcess, 'connections refused: the node holds as many as its open-files limit allows (half of it, for the store\'s sockets); raise the limit (ulimit -n) or put a proxy with a connection limit in front');
    expect(warning.maxConnections).to.equal(96);
    agent.destroy();
  });
});
