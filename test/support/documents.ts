/** Sample resource data documents (copied from ../shared/samples into test/fixtures). */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT } from './process.js';

export type Doc = Record<string, unknown>;

/** The resource locators a document is found by: its one string, or the strings of its array (0.49.0 allows several). */
export function locatorsOf(doc: Doc): string[] {
  const locator = doc.resource_locator;
  if (typeof locator === 'string') return [locator];
  return Array.isArray(locator) ? locator.filter((entry): entry is string => typeof entry === 'string') : [];
}

export function fixture<T = unknown>(relative: string): T {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', relative), 'utf8')) as T;
}

/** The NSDL corpus, without the old signatures (their keys are not reachable from here). */
export function nsdlDocs(count = 100): Doc[] {
  const body = fixture<{ documents: Doc[] }>('corpus/nsdl_dc-100docs.json');
  return body.documents.slice(0, count).map((doc) => {
    const { digital_signature: _signature, ...rest } = doc;
    void _signature;
    return rest;
  });
}

export function replacementChain(): Doc[] {
  return fixture<{ documents: Doc[] }>('documents/replacement-chain-with-delete-0.49.json').documents;
}

/** A tiny key server on loopback: serves armored public keys at /<name>. */
export async function keyServer(): Promise<{ url: string; put(name: string, armored: string): string; close(): Promise<void> }> {
  const keys = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const key = keys.get(req.url ?? '');
    res.writeHead(key ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(key ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    put(name, armored) { keys.set(`/${name}`, armored); return `${url}/${name}`; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
