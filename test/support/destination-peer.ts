/**
 * A peer of `source`'s network that answers GET /destination (as `source` answers it, under
 * another node_id) and the replication protocol's reads at its /incoming, and keeps no document
 * it is sent: `refuse` forbids each, as a CouchDB whose validate_doc_update forbids them would
 * (CouchDB "Replication Protocol": per-document errors in the _bulk_docs answer); `fail` answers
 * every `_bulk_docs` with a server error, which fails the replication; `fail-after-first` takes
 * the first `_bulk_docs` (answered written) and fails the others.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson } from './node.js';
import type { NetworkNode } from './network.js';

export type PeerMode = 'refuse' | 'fail' | 'fail-after-first';

export interface DestinationPeer {
  url: string;
  /** Documents sent in `_bulk_docs` requests, answered written or not. */
  received: number;
  /** Documents answered written. */
  written: number;
  close(): Promise<void>;
}

export async function destinationPeer(source: NetworkNode, mode: PeerMode): Promise<DestinationPeer> {
  const { body: destination } = await getJson(`${source.node.url}/destination`);
  const state = { url: '', received: 0, written: 0, bulkDocs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {};
      const answer = (status: number, json: unknown): void => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(json)); };
      if (req.method === 'GET' && path === '/destination') {
        const info = destination.target_node_info as Record<string, unknown>;
        answer(200, { ...destination, target_node_info: { ...info, node_id: `${mode}-peer`, incoming_url: `${state.url}/incoming` } });
      } else if (req.method === 'GET' && (path === '/incoming' || path === '/incoming/')) {
        answer(200, { db_name: 'incoming', doc_count: 0, update_seq: '0', instance_start_time: '0' });
      } else if (path.startsWith('/incoming/_local/')) {
        answer(req.method === 'PUT' ? 201 : 404, req.method === 'PUT' ? { ok: true, id: path.slice('/incoming/'.length), rev: '0-1' } : { error: 'not_found', reason: 'missing' });
      } else if (req.method === 'POST' && path === '/incoming/_revs_diff') {
        answer(200, Object.fromEntries(Object.entries(body).map(([id, revs]) => [id, { missing: revs }])));
      } else if (req.method === 'POST' && path === '/incoming/_bulk_docs') {
        const docs = (body.docs ?? []) as { _id: string; _rev: string }[];
        state.received += docs.length;
        state.bulkDocs += 1;
        if (mode === 'refuse') {
          answer(201, docs.map((doc) => ({ id: doc._id, rev: doc._rev, error: 'forbidden', reason: 'this node accepts no documents' })));
        } else if (mode === 'fail-after-first' && state.bulkDocs === 1) {
          state.written += docs.length;
          answer(201, []);
        } else {
          answer(500, { error: 'internal_server_error', reason: 'this node cannot write' });
        }
      } else if (req.method === 'POST' && path === '/incoming/_ensure_full_commit') {
        answer(201, { ok: true, instance_start_time: '0' });
      } else {
        answer(404, { error: 'not_found', reason: `${req.method} ${path}` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get url() { return state.url; },
    get received() { return state.received; },
    get written() { return state.written; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
