/**
 * What the benchmarks' clients do with pages: wait for a first answer through 503s, and follow
 * resumption tokens through a whole OAI-PMH or JSON harvest, timing each page. In bench/lib so
 * `npm run bench` does not take it for a benchmark (bench/run.ts runs the files of bench/ itself).
 */
import { secondsSince } from '../support.js';

/** The time of one page, and its position (1-based) in the list it came from. */
export interface PageTime { page: number; ms: number }

export interface Harvested { count: number; seconds: number; tokens: string[]; pages: PageTime[] }

/** Milliseconds until the page arrives, retrying 503s (index still building) after their Retry-After. */
export async function firstAnswer(url: string): Promise<{ ms: number; retries: number }> {
  const started = process.hrtime.bigint();
  let retries = 0;
  for (;;) {
    const response = await fetch(url);
    const text = await response.text();
    if (response.status === 200) return { ms: secondsSince(started) * 1000, retries };
    if (response.status !== 503) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`);
    retries += 1;
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
  }
}

/**
 * The first page of each service, all asked for at once the moment the publish ends, each timed
 * from that moment: what users arriving together meet. Asked one after another, every service
 * after the first would be timed from when the ones before it had answered, and its index would
 * have been building all that time (sessions 7-11 printed such figures for JSON harvest and
 * OAI-PMH, which came after obtain and slice).
 */
export async function firstAnswersAtOnce(base: string, pages: [string, string][]): Promise<{ name: string; ms: number; retries: number }[]> {
  return Promise.all(pages.map(async ([name, path]) => ({ name, ...await firstAnswer(`${base}${path}`) })));
}

/**
 * BENCH_ACCEPT_ENCODING (e.g. `identity`): the Accept-Encoding of the harvests' requests. Unset,
 * fetch's own (gzip, deflate, br), so the node compresses every page and the client inflates it,
 * as for a harvester that asks for compression; the raw view reads are never compressed.
 */
const HEADERS: Record<string, string> = process.env.BENCH_ACCEPT_ENCODING ? { 'accept-encoding': process.env.BENCH_ACCEPT_ENCODING } : {};
const TOKEN = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/;

/** A whole OAI-PMH ListRecords in `prefix`, following tokens; the tokens are kept to replay pages. */
export async function harvestOai(base: string, prefix: string): Promise<Harvested> {
  const started = process.hrtime.bigint();
  const result: Harvested = { count: 0, seconds: 0, tokens: [], pages: [] };
  let url = `${base}/OAI-PMH?verb=ListRecords&metadataPrefix=${encodeURIComponent(prefix)}`;
  for (;;) {
    const pageStarted = process.hrtime.bigint();
    const xml = await (await fetch(url, { headers: HEADERS })).text();
    result.pages.push({ page: result.pages.length + 1, ms: secondsSince(pageStarted) * 1000 });
    result.count += (xml.match(/<record>/g) ?? []).length;
    const token = TOKEN.exec(xml)?.[1];
    if (!token) break;
    result.tokens.push(token);
    url = `${base}/OAI-PMH?verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
  }
  result.seconds = secondsSince(started);
  return result;
}

/** A whole JSON listrecords harvest, following tokens. */
export async function harvestJson(base: string): Promise<Harvested> {
  const started = process.hrtime.bigint();
  const result: Harvested = { count: 0, seconds: 0, tokens: [], pages: [] };
  let url = `${base}/harvest/listrecords`;
  for (;;) {
    const pageStarted = process.hrtime.bigint();
    const body = await (await fetch(url, { headers: HEADERS })).json() as { listrecords?: unknown[]; resumption_token?: string | null; error?: string };
    result.pages.push({ page: result.pages.length + 1, ms: secondsSince(pageStarted) * 1000 });
    if (!body.listrecords) throw new Error(`listrecords failed: ${body.error}`);
    result.count += body.listrecords.length;
    if (!body.resumption_token) break;
    result.tokens.push(body.resumption_token);
    url = `${base}/harvest/listrecords?resumption_token=${encodeURIComponent(body.resumption_token)}`;
  }
  result.seconds = secondsSince(started);
  return result;
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Early pages against deep ones in one pass through a list: the median of pages 2–11 (page 1 pays
 * for warming the connection and the JIT) against the median of the ten full pages before the
 * last (the last page may be short).
 */
export function earlyAndDeep(pages: PageTime[]): { early: number; deep: number; deepFrom: number } {
  const full = pages.slice(0, -1);
  const early = full.slice(1, 11);
  const deep = full.slice(Math.max(early.length + 1, full.length - 10));
  return { early: median(early.map((p) => p.ms)), deep: median(deep.map((p) => p.ms)), deepFrom: deep[0]?.page ?? 0 };
}
