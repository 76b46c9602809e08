/**
 * What the SIGKILL checks share (issue 14): batches with known doc_IDs, a publish that reports
 * what the node acknowledged, a harvester that follows tokens and retries pages the store could
 * not serve, and the final check that every acknowledged document is there exactly once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { record } from './support.js';

type Json = Record<string, unknown>;
export const OPEN_PUBLISH = { services: { publish: { service_auth: { service_authz: ['none'] }, service_data: { doc_limit: 1000, msg_size_limit: 50 * 1024 * 1024 } } } };
export const CORPUS = nsdlDocs(100);

export function batchOf(prefix: string, size: number): Doc[] {
  return Array.from({ length: size }, (_, i) => ({ ...CORPUS[i % CORPUS.length], doc_ID: `${prefix}-${i}`, resource_locator: `http://example.org/kill/${prefix}/${i}` }));
}

/** Publishes one batch; the doc_IDs the node acknowledged (OK true), or undefined when there was no answer. */
export async function publish(url: string, docs: Doc[]): Promise<{ status: number; acked: string[] } | undefined> {
  try {
    const response = await fetch(`${url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents: docs }) });
    const body = await response.json() as { document_results?: { doc_ID: string; OK: boolean }[] };
    return { status: response.status, acked: (body.document_results ?? []).filter((r) => r.OK).map((r) => r.doc_ID) };
  } catch {
    return undefined; // the connection died with the node
  }
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try { process.kill(pid, 0); return true; } catch { return false; }
}

export async function gone(pid: number | undefined, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await delay(50);
  expect(alive(pid), `process ${pid} still runs`).to.equal(false);
}

/** Every identifier of a JSON harvest, following resumption tokens; retries a page the store could not serve. */
export async function harvestIds(url: string, onPage?: (page: number) => Promise<void>): Promise<{ ids: string[]; retries: number }> {
  const ids: string[] = [];
  let retries = 0;
  let next = `${url}/harvest/listidentifiers`;
  for (let page = 0; page < 100000; page += 1) {
    await onPage?.(page);
    let body: Json | undefined;
    for (let attempt = 0; attempt < 200 && !body; attempt += 1) {
      const response = await fetch(next).catch(() => undefined);
      if (response?.status === 200) body = await response.json() as Json;
      else { retries += 1; await response?.arrayBuffer(); await delay(250); }
    }
    expect(body, `page ${page} never answered`).to.not.equal(undefined);
    expect(body?.OK, JSON.stringify(body).slice(0, 300)).to.equal(true);
    for (const item of body?.listidentifiers as Json[]) ids.push(String((item.header as Json).identifier));
    if (typeof body?.resumption_token !== 'string') break;
    next = `${url}/harvest/listidentifiers?resumption_token=${encodeURIComponent(body.resumption_token)}`;
  }
  return { ids, retries };
}

/** Every acknowledged document is stored, and a full harvest lists each exactly once. */
export async function checkNothingLost(name: string, url: string, acked: Set<string>): Promise<void> {
  const { ids } = await harvestIds(url);
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const lost = [...acked].filter((id) => !counts.has(id));
  const duplicated = [...counts.entries()].filter(([, count]) => count > 1).map(([id]) => id);
  // Each acknowledged document is also read back by doc_ID, so "listed" means "stored and served".
  let unreadable = 0;
  const ackedIds = [...acked];
  for (let i = 0; i < ackedIds.length; i += 100) {
    const response = await fetch(`${url}/obtain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request_IDs: ackedIds.slice(i, i + 100), by_doc_ID: true }) });
    const body = await response.json() as { documents: { document: unknown[] | null }[] };
    unreadable += body.documents.filter((entry) => !entry.document || entry.document.length !== 1).length;
  }
  record(name, { checked: acked.size, lost: lost.length + unreadable, duplicated: duplicated.length });
  console.log(`      ${name}: ${acked.size} acknowledged, ${ids.length} harvested, lost ${lost.length}, unreadable ${unreadable}, duplicated ${duplicated.length}`);
  expect(lost.slice(0, 10), 'lost').to.deep.equal([]);
  expect(unreadable, 'unreadable by doc_ID').to.equal(0);
  expect(duplicated.slice(0, 10), 'duplicated').to.deep.equal([]);
}

