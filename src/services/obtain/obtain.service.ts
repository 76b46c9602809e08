/**
 * Basic Obtain (spec "Basic Obtain" and "Flow-control states for obtain").
 *
 * ALL requests page through the live rows of `harvest/by_node_timestamp` newest first, by keyset
 * (src/storage/obtain-repository.ts: obtain has no design doc of its own). With
 * flow control a page is `doc_limit` (`id_limit` with ids_only) entries and a stateless token
 * continues it. The token remembers the newest key of the first page: when newer documents have
 * arrived since, the sequence is broken and the call is a flow control error (spec rule 7).
 * Without flow control the whole result is streamed in chunks, in constant memory.
 *
 * Tokens are stateless, so "a call without a token invalidates the current token" cannot be
 * enforced: such a call simply starts a new sequence, and older tokens stay valid for their
 * lifetime (the spec lets the service decide how long state is kept).
 */
import type { ObtainRepository, TimeKey } from '../../storage/obtain-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { requestFingerprint, type TokenCodec } from '../../domain/resumption-token.js';
import { numberSetting, type ServiceSettings } from '../service-settings.js';
import { obtainError, type ObtainRequest } from './obtain-request.js';
import { presentDocument } from './present.js';
import { alignedAnswers, type ObtainEntry } from './aligned-answers.js';
import { isLive } from '../../domain/resource-document.js';
import { streamedJsonList, type ListEnding } from '../../protocol/json-list-stream.js';

const STREAM_CHUNK = 500;
/**
 * Request IDs looked up at once; a request naming more is answered streamed, so neither the
 * store's concurrent reads nor the answer held in memory grow with the request.
 */
const LOOKUP_CHUNK = 50;

/** How obtain's streamed answers end (streamedJsonList): the list closed, or the spec's error form saying after how many `what` it broke off. */
function documentsEnding(what: string): ListEnding {
  return {
    done: () => ']}',
    failed: (sent, reason) => `],"OK":false,"error":${JSON.stringify(`the result is incomplete after ${sent} ${what}: ${reason}`)}}`,
  };
}
const DEFAULT_PAGE = { documents: 100, ids: 1000 };

export type ObtainResponse =
  | { kind: 'object'; body: Record<string, unknown> }
  | { kind: 'stream'; chunks: AsyncGenerator<string> };

interface Prefetched { cursor: TimeKey; size: number; newest: Promise<TimeKey | undefined>; rows: ReturnType<ObtainRepository['newestFirst']> }

/** A request whose ids_only is known (ObtainService.resolved). */
type ResolvedRequest = ObtainRequest & { idsOnly: boolean };

const IDS_SERVICE = 'obtain:ids';
const ALL_SERVICE = 'obtain:all';

const sameKey = (a: TimeKey, b: TimeKey): boolean => a[0] === b[0] && a[1] === b[1];

export class ObtainService {
  constructor(
    private readonly views: ObtainRepository,
    private readonly resources: ResourceRepository,
    private readonly settings: ServiceSettings,
    private readonly tokens: TokenCodec,
  ) {}

  async obtain(asked: ObtainRequest): Promise<ObtainResponse> {
    const request = this.resolved(asked);
    // A continuation page needs the settings, the newest key and the page rows: the last two only
    // depend on the token, so all three are read at once (the token is verified before use).
    const prefetched = request.token !== undefined && (request.ids.length === 0 || request.idsOnly) ? this.prefetch(request) : undefined;
    const description = await this.settings.of('obtain');
    const data = description.service_data ?? {};
    const flowControl = data.flow_control === true;
    const specOnly = data.spec_kv_only === true;
    if (request.token !== undefined && !flowControl) throw obtainError('flow control error: this node does not support flow control, so it issued no resumption token');
    // ids_only ignores request IDs (spec rule 5: supplying IDs is then a no-op).
    if (request.ids.length > 0 && !request.idsOnly) {
      if (request.token !== undefined) throw obtainError('flow control error: a resumption token continues an ALL request only');
      const batches = alignedAnswers(request.ids, LOOKUP_CHUNK, (ids) => this.lookup(ids, request.byDocId, specOnly));
      if (request.ids.length <= LOOKUP_CHUNK) {
        const documents: ObtainEntry[] = [];
        for await (const batch of batches) documents.push(...batch);
        return { kind: 'object', body: { documents } };
      }
      return { kind: 'stream', chunks: streamedJsonList('{"documents":[', batches, documentsEnding('request IDs')) };
    }
    const limit = numberSetting(data, request.idsOnly ? 'id_limit' : 'doc_limit');
    if (limit === 0) throw obtainError(`this node does not serve ALL requests (service_data.${request.idsOnly ? 'id_limit' : 'doc_limit'} is 0)`);
    if (flowControl) return { kind: 'object', body: await this.page(request, limit ?? (request.idsOnly ? DEFAULT_PAGE.ids : DEFAULT_PAGE.documents), specOnly, prefetched) };
    // Without flow control: the most recent `limit` documents, or all when no limit is stated.
    const first = await this.views.newestFirst(Math.min(STREAM_CHUNK, limit ?? STREAM_CHUNK), undefined, !request.idsOnly);
    return { kind: 'stream', chunks: this.stream(first, limit ?? Number.POSITIVE_INFINITY, request.idsOnly, specOnly) };
  }

  /**
   * A token sent alone continues what it was issued for, ids_only included: the original node
   * required the token alone (LearningRegistry obtain.py: "resumption_token must be the only
   * parameter"), so its clients continue an ids_only list that way (a reference audit, session 26).
   * Only a token this node issued says so; any other is refused later as before.
   */
  private resolved(request: ObtainRequest): ResolvedRequest {
    if (request.idsOnly !== undefined) return { ...request, idsOnly: request.idsOnly };
    const continues = request.token !== undefined && request.ids.length === 0 ? this.tokens.authentic(request.token)?.s : undefined;
    return { ...request, idsOnly: continues === IDS_SERVICE };
  }

  /** One entry for each of the distinct `ids` (aligned-answers.ts puts them in the request's order). */
  private async lookup(ids: string[], byDocId: boolean, specOnly: boolean): Promise<Map<string, ObtainEntry>> {
    const entries = new Map<string, ObtainEntry>();
    if (byDocId) {
      const found = await this.resources.getMany(ids);
      for (const id of ids) {
        const doc = found.get(id);
        entries.set(id, { doc_ID: id, document: isLive(doc) ? [presentDocument(doc, specOnly)] : null });
      }
      return entries;
    }
    const found = await this.views.byResourceLocators(ids);
    for (const id of ids) entries.set(id, { doc_ID: id, document: found.get(id)?.map((doc) => presentDocument(doc, specOnly)) ?? null });
    return entries;
  }

  private prefetch(request: ResolvedRequest): Prefetched | undefined {
    // Only a token this node issued starts a read (a forged one could ask for any cursor and size).
    const payload = this.tokens.authentic(request.token);
    const state = payload?.x as { top?: TimeKey; size?: number } | undefined;
    if (!payload || !Array.isArray(payload.k) || typeof state?.size !== 'number' || state.size < 1 || state.size > 10000) return undefined;
    const prefetched: Prefetched = {
      cursor: payload.k as TimeKey,
      size: state.size,
      newest: this.views.newestKey(),
      rows: this.views.newestFirst(state.size + 1, payload.k as TimeKey, !request.idsOnly),
    };
    // Failures surface when awaited; never as unhandled rejections if the token turns out invalid.
    prefetched.newest.catch(() => undefined);
    prefetched.rows.catch(() => undefined);
    return prefetched;
  }

  private async page(request: ResolvedRequest, pageSize: number, specOnly: boolean, prefetched: Prefetched | undefined): Promise<Record<string, unknown>> {
    const service = request.idsOnly ? IDS_SERVICE : ALL_SERVICE;
    const fingerprint = requestFingerprint({ idsOnly: request.idsOnly, pageSize });
    let cursor: TimeKey | undefined;
    let snapshot: TimeKey | undefined;
    let returned = 0;
    if (request.token !== undefined) {
      const check = this.tokens.decode(request.token, service, fingerprint);
      if (!check.ok) throw obtainError(`flow control error: ${check.reason}`);
      cursor = check.payload.k as TimeKey;
      snapshot = (check.payload.x as { top: TimeKey }).top;
      returned = check.payload.n;
      const usable = prefetched && prefetched.size === pageSize && sameKey(prefetched.cursor, cursor) ? prefetched : undefined;
      if (!usable) prefetched = undefined;
      const newest = await (usable ? usable.newest : this.views.newestKey());
      if (!newest || !snapshot || !sameKey(newest, snapshot)) {
        throw obtainError('flow control error: the stored documents changed since the first page; start again without a token');
      }
    }
    const rows = await (prefetched ? prefetched.rows : this.views.newestFirst(pageSize + 1, cursor, !request.idsOnly));
    const page = rows.slice(0, pageSize);
    const documents = page.map((row) => (request.idsOnly ? { doc_ID: row.id } : { doc_ID: row.id, document: [presentDocument(row.doc as StoredDoc, specOnly)] }));
    const body: Record<string, unknown> = { documents };
    const last = page[page.length - 1];
    if (rows.length > pageSize && last) {
      // A paged list resumed once is likely followed on: the next request's first read starts now (src/storage/read-ahead.ts).
      if (request.token !== undefined) this.views.readAhead(pageSize + 1, last.key, !request.idsOnly);
      body.resumption_token = this.tokens.encode({ s: service, q: fingerprint, k: last.key, n: returned + page.length, x: { top: snapshot ?? page[0]?.key, size: pageSize } });
    } else if (request.token !== undefined) {
      body.resumption_token = null; // the last portion of a paged result (spec rule 7)
    }
    return body;
  }

  private stream(first: Awaited<ReturnType<ObtainRepository['newestFirst']>>, limit: number, idsOnly: boolean, specOnly: boolean): AsyncGenerator<string> {
    const views = this.views;
    async function* batches(): AsyncGenerator<unknown[]> {
      let rows = first;
      let sent = 0;
      while (rows.length > 0 && sent < limit) {
        const batch = rows.slice(0, limit - sent);
        yield batch.map((row) => (idsOnly ? { doc_ID: row.id } : { doc_ID: row.id, document: [presentDocument(row.doc as StoredDoc, specOnly)] }));
        sent += batch.length;
        const last = rows[rows.length - 1];
        if (rows.length < STREAM_CHUNK || sent >= limit || !last) return;
        rows = await views.newestFirst(Math.min(STREAM_CHUNK, limit - sent), last.key, !idsOnly);
      }
    }
    return streamedJsonList('{"documents":[', batches(), documentsEnding('documents'));
  }
}
