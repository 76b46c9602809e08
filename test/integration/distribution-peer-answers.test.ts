/**
 * A destination URL where something answers that is not a Learning Registry node (a plain web
 * server, a proxy's error page, a wrong path): the source reached it, so the outcome is `failed`,
 * and the reason names the request, the status and the content type that came back, for
 * GET /destination and for the probe of the inbound endpoint alike (destination-checks.ts, replication-step.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { getJson } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { ORIGINAL_DESTINATION } from '../../src/services/distribute/destination-info.js';
import { startTestNetwork, publish, distribute, connectNodes, type TestNetwork, type NetworkNode } from '../support/network.js';

/** What the peer answers at each path: status, content type, body, other headers. */
type Answer = [number, string, string, Record<string, string>?];

describe('a destination that answers as no Learning Registry node does', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let peer: http.Server;
  let peerUrl = '';
  const answers = new Map<string, Answer>();
  const requested: string[] = [];

  before(async () => {
    net = await startTestNetwork({ nodes: 1, topology: 'none' });
    a = net.nodes[0] as NetworkNode;
    await publish(a, nsdlDocs(1));
    peer = http.createServer((req, res) => {
      requested.push(req.url ?? '');
      const [status, type, body, headers] = answers.get(req.url ?? '') ?? [404, 'text/html', '<html><body>Not Found</body></html>'];
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    // A node's /destination (the source's own, under another node_id, so no skip rule applies) whose inbound endpoint is on the peer.
    const { body: own } = await getJson(`${a.node.url}/destination`);
    const nodeAnswer = (base: string): Answer => [200, 'application/json', JSON.stringify({ ...own, target_node_info: { ...(own.target_node_info as Record<string, unknown>), node_id: `peer${base}`, incoming_url: `${peerUrl}${base}/incoming` } })];
    answers.set('/html200/destination', [200, 'text/html; charset=utf-8', '<html><body>Welcome</body></html>']);
    answers.set('/proxy502/destination', [502, 'text/plain', 'Bad Gateway']);
    answers.set('/json200/destination', [200, 'application/json', '{"hello":"world"}']);
    // http:// redirected to https://, a common misconfiguration; and an answer past the 1 MiB a peer may send.
    answers.set('/redirect/destination', [301, 'text/html', 'Moved', { location: 'https://example.org/redirect/destination' }]);
    answers.set('/huge/destination', [200, 'application/json', JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) })]);
    answers.set('/lrerror/destination', [500, 'application/json', '{"OK":false,"error":"the node is closed"}']);
    answers.set('/probe404/destination', nodeAnswer('/probe404'));
    answers.set('/probe500/destination', nodeAnswer('/probe500'));
    answers.set('/probe500/incoming', [500, 'application/json', '{"error":"internal_server_error","reason":"no incoming database"}']);
    answers.set('/probe200/destination', nodeAnswer('/probe200'));
    answers.set('/probe200/incoming', [200, 'text/html', '<html>it works</html>']);
    // The original implementation's answer: lowercase ok and its misspelt key only (distribute.py).
    const original = { ...(own.target_node_info as Record<string, unknown>), node_id: 'peer/original', incoming_url: `${peerUrl}/original/incoming` };
    answers.set('/original/destination', [200, 'application/json', JSON.stringify({ ok: true, taget_node_info: original })]);
    answers.set('/original/incoming', [200, 'application/json', '{"db_name":"incoming","update_seq":"0"}']);
    for (const base of ['', '/html200', '/proxy502', '/json200', '/redirect', '/huge', '/lrerror', '/probe404', '/probe500', '/probe200', '/original']) {
      await connectNodes(a, { node: { publicUrl: `${peerUrl}${base}` } } as NetworkNode, { credentials: false });
    }
  });
  after(async () => {
    peer.closeAllConnections();
    peer.close();
    await net.stop();
  });

  it('is failed, with a reason naming the request and the status and content type it answered', async () => {
    const { status, body } = await distribute(a);
    expect(status).to.equal(200);
    const { body: st } = await getJson(`${a.node.url}/status`);
    const notANode = "not a Learning Registry node's /destination";
    const notAnEndpoint = "not a Learning Registry node's inbound endpoint";
    const expected: Record<string, { outcome: string; reason: string }> = {
      [peerUrl]: { outcome: 'failed', reason: `GET ${peerUrl}/destination answered HTTP 404 (text/html): ${notANode}` },
      [`${peerUrl}/html200`]: { outcome: 'failed', reason: `GET ${peerUrl}/html200/destination answered HTTP 200 (text/html): ${notANode}` },
      [`${peerUrl}/proxy502`]: { outcome: 'failed', reason: `GET ${peerUrl}/proxy502/destination answered HTTP 502 (text/plain): ${notANode}` },
      [`${peerUrl}/json200`]: { outcome: 'failed', reason: `GET ${peerUrl}/json200/destination answered HTTP 200 (application/json): the answer has no target_node_info` },
      [`${peerUrl}/redirect`]: { outcome: 'failed', reason: `GET ${peerUrl}/redirect/destination answered HTTP 301: it redirects to a URL this node does not follow` },
      [`${peerUrl}/huge`]: { outcome: 'failed', reason: `GET ${peerUrl}/huge/destination answered HTTP 200: the answer is larger than this node accepts` },
      [`${peerUrl}/lrerror`]: { outcome: 'failed', reason: `GET ${peerUrl}/lrerror/destination answered HTTP 500 (application/json): the destination reports an error: the node is closed` },
      [`${peerUrl}/probe404`]: { outcome: 'failed', reason: `GET ${peerUrl}/probe404/incoming answered HTTP 404 (text/html): ${notAnEndpoint}` },
      [`${peerUrl}/probe500`]: { outcome: 'failed', reason: `GET ${peerUrl}/probe500/incoming answered HTTP 500 (application/json): the destination reports an error: internal_server_error: no incoming database` },
      [`${peerUrl}/probe200`]: { outcome: 'failed', reason: `GET ${peerUrl}/probe200/incoming answered HTTP 200 (text/html): ${notAnEndpoint}` },
      [`${peerUrl}/original`]: { outcome: 'failed', reason: ORIGINAL_DESTINATION },
    };
    for (const entries of [body.outbound, st.outbound] as Record<string, Record<string, unknown>>[]) {
      const got = Object.fromEntries(Object.entries(entries).map(([url, entry]) => [url, { outcome: entry.outcome, reason: entry.reason }]));
      expect(got).to.deep.equal(expected);
    }
    // Not even probed: an original destination is known from its /destination answer.
    expect(requested.filter((url) => url.startsWith('/original/'))).to.deep.equal(['/original/destination']);
  });
});
