/**
 * HTTP for lr-node: global fetch with retries and exponential backoff on network errors and on
 * 429/502/503/504, honouring `Retry-After` (RFC 9110 10.2.3: seconds or an HTTP date), and
 * abortable so that Ctrl-C never waits for a sleeping retry.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { networkError, refusedError, usageError } from './errors.js';
import { isRecord } from '../domain/is-record.js';

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told before each wait, for a progress line. */
  onRetry?: (reason: string, delayMs: number, attempt: number) => void;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 1000, maxDelayMs: 60000, timeoutMs: 120000 };

export interface HttpAnswer { status: number; headers: Headers; text: string }

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export class Interrupted extends Error {
  constructor() { super('interrupted'); this.name = 'Interrupted'; }
}

/** `base` (a node's root URL, maybe with a path) joined with a service path. */
export function endpoint(base: string, servicePath: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw usageError(`not a URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`not an http(s) URL: ${base}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${servicePath.replace(/^\/+/, '')}`;
  return url.toString();
}

/** Milliseconds a `Retry-After` value asks for, or undefined when absent or unreadable. */
// Ours: delay-seconds or an HTTP-date, which Date.parse reads; no dependency of ours exports an HTTP-date parser.
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`; an abort of `signal` (Ctrl-C) ends the wait as Interrupted. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, signal ? { signal } : {});
  } catch {
    throw new Interrupted();
  }
}

function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ?? (error instanceof Error ? error.message : String(error));
}

/** The `error` of a node's JSON refusal (`{"OK": false, "error"}`), if the text is one. */
function nodeError(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return isRecord(body) && body.OK === false && typeof body.error === 'string' ? body.error.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A 503 the node means to last: every temporary 503 of the node carries Retry-After (the store
 * unavailable, a view still building), and a service switched off in its description answers its
 * JSON refusal without one, which no retry changes (an audit saw `lr-node distribute` retry it for
 * 31 s, then exit 3 without the node's reason). A proxy's 503 (no JSON refusal) is still retried.
 */
function isStandingRefusal(response: Response, text: string): boolean {
  return response.status === 503 && !response.headers.has('retry-after') && nodeError(text) !== undefined;
}

/** One request, retried as the policy says; answers every status that is not retried. */
export async function request(url: string, init: RequestInit, policy: RetryPolicy = DEFAULT_RETRY): Promise<HttpAnswer> {
  const host = new URL(url).host;
  for (let attempt = 0; ; attempt += 1) {
    let reason: string;
    let wait: number | undefined;
    try {
      const signals = [AbortSignal.timeout(policy.timeoutMs), ...(policy.signal ? [policy.signal] : [])];
      const response = await fetch(url, { ...init, signal: AbortSignal.any(signals) });
      const text = await response.text();
      if (!RETRY_STATUSES.has(response.status) || isStandingRefusal(response, text)) return { status: response.status, headers: response.headers, text };
      const said = nodeError(text);
      reason = `${host} answered ${response.status}${said ? `: ${said}` : ''}`;
      wait = retryAfterMs(response.headers.get('retry-after'));
    } catch (error) {
      if (policy.signal?.aborted) throw new Interrupted();
      reason = `cannot reach ${host}: ${describeNetworkError(error)}`;
    }
    if (attempt >= policy.retries) throw networkError(`${reason} (gave up after ${policy.retries} retries)`);
    const delay = Math.min(policy.maxDelayMs, wait ?? policy.baseDelayMs * 2 ** attempt);
    policy.onRetry?.(reason, delay, attempt + 1);
    await sleep(delay, policy.signal);
  }
}

/** The JSON body of an answer; a body that is not JSON is the node refusing in a way we cannot read. */
export function jsonOf(answer: HttpAnswer, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(answer.text);
    if (isRecord(value)) return value;
  } catch {
    // reported below
  }
  throw refusedError(`${what}: HTTP ${answer.status} with a body that is not a JSON object: ${answer.text.slice(0, 200).replace(/\s+/g, ' ')}`);
}

/** A JSON service's answer: the parsed body when HTTP 2xx and not `"OK": false`, else the node's error. */
export function okJson(answer: HttpAnswer, what: string): Record<string, unknown> {
  const body = answer.status === 401 || answer.status === 403
    ? { OK: false, error: `not authorized (${answer.status}): check the account name, password and role` }
    : jsonOf(answer, what);
  if (answer.status >= 200 && answer.status < 300 && body.OK !== false) return body;
  const error = typeof body.error === 'string' && body.error ? body.error : `HTTP ${answer.status}`;
  throw refusedError(`${what}: the node refused: ${error}`);
}
