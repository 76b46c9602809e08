/**
 * The least any Node.js front of the store can do for an obtain by doc_ID, for bench/floor: one
 * `node:http` server that reads `?request_ID=`, GETs that document from the store and answers it
 * in obtain's envelope. No routing, checks, logging, metrics or compression: what it costs is the
 * price of a Node process in the path (two HTTP exchanges and a JSON parse and serialisation per
 * request), whatever the node does on top.
 *
 * Started by bench/floor.ts as its own process. Its settings arrive as one JSON line on stdin (the
 * store's credentials stay out of its environment and command line); it prints `{"port":N}`.
 *   transport "undici": undici's `request` on a keep-alive pool (the cheapest client Node has);
 *   transport "fetch": the global `fetch`, which is what nano sends every store request with.
 */
import http from 'node:http';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

interface FrontSettings { store: string; auth: string; db: string; transport: 'undici' | 'fetch'; connections: number }

const line = await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const settings = JSON.parse(line) as FrontSettings;
const pool = new Pool(settings.store, { connections: settings.connections });
const headers = { authorization: settings.auth, accept: 'application/json' };

async function readDocument(id: string): Promise<{ status: number; doc: unknown }> {
  const path = `/${encodeURIComponent(settings.db)}/${encodeURIComponent(id)}`;
  if (settings.transport === 'fetch') {
    const response = await fetch(`${settings.store}${path}`, { headers });
    return { status: response.status, doc: await response.json() };
  }
  const response = await pool.request({ path, method: 'GET', headers });
  return { status: response.statusCode, doc: await response.body.json() };
}

const server = http.createServer((request, response) => {
  const id = new URL(request.url ?? '/', 'http://front').searchParams.get('request_ID') ?? '';
  readDocument(id).then(({ status, doc }) => {
    const body = JSON.stringify(status === 200 ? { documents: [{ doc_ID: id, document: [doc] }] } : { OK: false, error: 'not found' });
    response.writeHead(status === 200 ? 200 : 404, { 'content-type': 'application/json' });
    response.end(body);
  }, (error: unknown) => {
    response.writeHead(502, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ OK: false, error: String(error) }));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => { server.close(); void pool.close(); process.exit(0); });
