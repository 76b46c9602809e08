/**
 * The least any Node.js front of the store can do for a request, for bench/floor and
 * bench/harvest: one `node:http` server, two paths.
 * - `/obtain?request_ID=`: GETs that document from the store and answers it in obtain's envelope.
 * - `/harvest/listrecords[?resumption_token=]`: reads a keyset page of the view the node's JSON
 *   harvest reads (`harvest/by_node_timestamp`, include_docs) and answers it as listrecords'
 *   records (header, and the document without the store's members), with the last key as an
 *   unsigned token. No read-ahead, no time pin, no deleted-data policy.
 * No routing, checks, logging, metrics or compression: what it costs is the price of a Node
 * process in the path (two HTTP exchanges and a JSON parse and serialisation per request),
 * whatever the node does on top.
 *
 * Started by bench/lib/front-process.ts as its own process. Its settings arrive as one JSON line
 * on stdin (the store's credentials stay out of its environment and command line); it prints
 * `{"port":N}`.
 *   transport "undici": undici's `request` on a keep-alive pool (the cheapest client Node has);
 *   transport "fetch": the global `fetch`, which is what nano sends every store request with.
 */
import http from 'node:http';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import type { FrontSettings } from './front-process.js';

const line = await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const settings = JSON.parse(line) as FrontSettings;
const pool = new Pool(settings.store, { connections: settings.connections });
const headers = { authorization: settings.auth, accept: 'application/json' };

async function readStore(path: string): Promise<{ status: number; body: unknown }> {
  if (settings.transport === 'fetch') {
    const response = await fetch(`${settings.store}${path}`, { headers });
    return { status: response.status, body: await response.json() };
  }
  const response = await pool.request({ path, method: 'GET', headers });
  return { status: response.statusCode, body: await response.body.json() };
}

async function obtain(url: URL): Promise<{ status: number; body: unknown }> {
  const id = url.searchParams.get('request_ID') ?? '';
  const { status, body } = await readStore(`/${encodeURIComponent(settings.db)}/${encodeURIComponent(id)}`);
  return status === 200 ? { status, body: { documents: [{ doc_ID: id, document: [body] }] } } : { status: 404, body: { OK: false, error: 'not found' } };
}

interface Row { key: unknown[]; value: number; doc: Record<string, unknown> }

async function listRecords(url: URL): Promise<{ status: number; body: unknown }> {
  const page = settings.page ?? 100;
  const token = url.searchParams.get('resumption_token');
  const after = token ? JSON.stringify(JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))) : undefined;
  // Keyset pages: from the last key returned (inclusive, then dropped), one row more to know whether more follow.
  const query = new URLSearchParams({ include_docs: 'true', limit: String(page + (after ? 2 : 1)), ...(after ? { startkey: after } : {}) });
  const { status, body } = await readStore(`/${encodeURIComponent(settings.db)}/_design/harvest/_view/by_node_timestamp?${query}`);
  if (status !== 200) return { status: 502, body: { OK: false, error: 'store' } };
  const rows = (body as { rows: Row[] }).rows.slice(after ? 1 : 0);
  const records = rows.slice(0, page).map((row) => {
    const served: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row.doc)) if (!key.startsWith('_')) served[key] = value;
    const header = { identifier: row.doc.doc_ID, datestamp: `${String(row.doc.node_timestamp).slice(0, 19)}Z`, status: row.value === 1 ? 'deleted' : 'active' };
    return { record: { header, resource_data: served } };
  });
  const more = rows.length > page;
  const last = records.length > 0 ? rows[records.length - 1]?.key : undefined;
  return { status: 200, body: { OK: true, listrecords: records, resumption_token: more && last ? Buffer.from(JSON.stringify(last)).toString('base64url') : null } };
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://front');
  (url.pathname === '/harvest/listrecords' ? listRecords(url) : obtain(url)).then(({ status, body }) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }, (error: unknown) => {
    response.writeHead(502, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ OK: false, error: String(error) }));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => { server.close(); void pool.close(); process.exit(0); });
