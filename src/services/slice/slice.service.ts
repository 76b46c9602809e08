/**
 * Slice (spec "Slice (optional)"): live documents by identity, tags and a day range, ANDed, in
 * (node_timestamp, doc_ID) order, paged by keyset with resumption tokens (spec "Limits": "the
 * node administrator MAY limit results, which triggers resumption_token").
 *
 * Every criterion is a range read of a view keyed [criterion, node_timestamp, doc_ID], the text
 * as code units (storage/view-keys.ts); several tags are a union of ranges merged in that order;
 * identity AND tags reads the more selective index and filters by the other. Nothing scans the
 * whole store unless no criterion is given.
 */
import type { TokenCodec } from '../../domain/resumption-token.js';
import { requestFingerprint } from '../../domain/resumption-token.js';
import { nodeTimestamp, type Clock } from '../../domain/timestamps.js';
import { badRequest } from '../../errors/app-error.js';
import type { StoredDoc } from '../../storage/documents.js';
import { compareRows, type SliceBounds, type SliceIndexKey, type SliceRepository, type SliceRow } from '../../storage/slice-repository.js';
import type { SliceArgs } from './slice-args.js';
import { identitiesOf, tagsOf } from './slice-match.js';
import { isLive, publicForm } from '../../domain/resource-document.js';
import { openObject, streamedJsonList } from '../../protocol/json-list-stream.js';

export interface SliceLimits { docLimit: number; idLimit: number; flowControl: boolean }

export interface SliceEntry { doc_ID: string; resource_data_description?: Record<string, unknown> }

export interface SliceResponse {
  replyStart: string;
  /** Index keys (view ranges) this page was read from: 1 for identity or date only, one per tag. */
  keyCount: number;
  documents: SliceEntry[];
  resultCount: number;
  replyEnd: string;
  /** A token while more remain; null on the last page of a resumed slice, as obtain and the JSON harvest answer. */
  resumption_token?: string | null;
}

type Via = 'identity' | 'tags';

/** A whole slice as JSON text chunks (no flow control). */
export class SliceStream {
  constructor(readonly chunks: AsyncGenerator<string>) {}
}

/** Rows read per store request while a whole slice streams. */
const WHOLE_DOCS_CHUNK = 200;
const WHOLE_IDS_CHUNK = 1000;

/**
 * Token state beyond the cursor: the fixed end bound, for identity AND tags the index chosen,
 * and the request's arguments (`a`), so the token alone continues the slice.
 */
interface TokenExtra { end: string; via?: Via; a?: TokenArgs }
type TokenArgs = [string | null, string[], string | null, string | null, boolean];

const argsOf = (args: SliceArgs): TokenArgs => [args.identity ?? null, args.tags, args.from ?? null, args.until ?? null, args.idsOnly === true];

/**
 * A request that names nothing but its resumption_token continues with the token's arguments
 * (the original node's clients send the token alone). The token is verified against them after.
 */
function withTokenArgs(args: SliceArgs, tokens: TokenCodec): SliceArgs {
  const alone = args.resumptionToken !== undefined && args.identity === undefined && args.tags.length === 0 && args.from === undefined && args.until === undefined && args.idsOnly === undefined;
  const a = alone ? (tokens.authentic(args.resumptionToken)?.x as Partial<TokenExtra> | undefined)?.a : undefined;
  if (!Array.isArray(a) || a.length !== 5 || !Array.isArray(a[1]) || !a[1].every((tag) => typeof tag === 'string')) return args;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return { ...args, identity: text(a[0]), tags: a[1], from: text(a[2]), until: text(a[3]), idsOnly: a[4] === true };
}

/** Rows read per index key to compare selectivity (limit K, no documents). */
const ESTIMATE_K = 200;
/** A filtered page reads at most this many index rows, then returns what it has with a token. */
const SCAN_BUDGET = 2000;

const SERVICE = 'slice';

export class SliceService {
  constructor(private readonly repo: SliceRepository, private readonly tokens: TokenCodec, private readonly clock: Clock) {}

  /**
   * With flow control, one page and a token while more remain. Without it (`flow_control: false`)
   * the whole slice, streamed (SliceStream): the spec names a token only "when the node limits
   * result counts", so a node that does not limit them answers every document, as obtain and
   * harvest do.
   */
  async slice(requested: SliceArgs, limits: SliceLimits): Promise<SliceResponse | SliceStream> {
    const replyStart = this.clock().toISOString();
    const plan = await this.plan(requested, limits);
    const { args, indexes } = plan;
    const entryOf = (entry: PageEntry): SliceEntry => (args.idsOnly || !entry.doc ? { doc_ID: entry.id } : { doc_ID: entry.id, resource_data_description: publicForm(entry.doc) });
    if (!limits.flowControl) return this.whole(plan, replyStart, entryOf);
    const page = await this.page(plan, plan.resumed?.cursor, plan.pageSize, true);
    // The last page of a paged result says so with null (spec Basic Obtain: "NULL on the last
    // page"), as obtain and the JSON harvest do; a result that fits its first page has none.
    let token: string | null | undefined = plan.resumed ? null : undefined;
    if (page.next) {
      const extra: TokenExtra = plan.via === undefined ? { end: plan.bounds.end, a: argsOf(args) } : { end: plan.bounds.end, via: plan.via, a: argsOf(args) };
      token = this.tokens.encode({ s: SERVICE, q: plan.fingerprint, k: [page.next.ts, page.next.id], n: (plan.resumed?.count ?? 0) + page.entries.length, x: extra });
    }
    return {
      replyStart,
      keyCount: indexes.length,
      documents: page.entries.map(entryOf),
      resultCount: page.entries.length,
      replyEnd: this.clock().toISOString(),
      ...(token === undefined ? {} : { resumption_token: token }),
    };
  }

  /** What a request reads: its arguments (a token's, when sent alone), bounds, and the index keys. */
  private async plan(requested: SliceArgs, limits: SliceLimits): Promise<Plan> {
    const args = withTokenArgs(requested, this.tokens);
    const fingerprint = requestFingerprint(argsOf(args));
    const resumed = args.resumptionToken === undefined ? undefined : this.resume(args.resumptionToken, fingerprint, limits);
    // A high-water mark fixed on the first page ends every later page too: documents published
    // (or republished, which moves them) while a client pages are not chased, so paging ends.
    const hwm = nodeTimestamp(this.clock());
    const end = resumed?.extra.end ?? (args.until !== undefined && args.until <= hwm ? args.until : hwm);
    const bounds: SliceBounds = { from: args.from, end };
    const pageSize = Math.max(1, args.idsOnly ? limits.idLimit : limits.docLimit);
    const identityKey: SliceIndexKey[] = args.identity === undefined ? [] : [{ view: 'by_identity', prefix: [args.identity] }];
    const tagKeys: SliceIndexKey[] = args.tags.map((tag) => ({ view: 'by_tag', prefix: [tag] }));
    if (identityKey.length > 0 && tagKeys.length > 0) {
      const via = resumed?.extra.via ?? await this.moreSelective(identityKey, tagKeys, bounds, resumed?.cursor);
      return { args, fingerprint, resumed, bounds, pageSize, via, indexes: via === 'identity' ? identityKey : tagKeys };
    }
    const indexes = identityKey.length > 0 ? identityKey : tagKeys.length > 0 ? tagKeys : [{ view: 'by_date' as const, prefix: [] }];
    return { args, fingerprint, resumed, bounds, pageSize, via: undefined, indexes };
  }

  /** `bounded`: a filtered page stops after SCAN_BUDGET index rows (flow control). */
  private page(plan: Plan, after: SliceRow | undefined, pageSize: number, bounded: boolean): Promise<Page> {
    return plan.via === undefined
      ? this.plainPage(plan.indexes, plan.bounds, after, pageSize, plan.args.idsOnly === true)
      : this.filteredPage(plan.indexes, plan.bounds, after, pageSize, this.otherCriterion(plan.via, plan.args), bounded);
  }

  /** The whole slice, read in chunks and streamed as it is read (memory stays constant). */
  private whole(plan: Plan, replyStart: string, entryOf: (entry: PageEntry) => SliceEntry): SliceStream {
    const chunkSize = plan.args.idsOnly ? WHOLE_IDS_CHUNK : WHOLE_DOCS_CHUNK;
    const page = (after: SliceRow | undefined): Promise<Page> => this.page(plan, after, chunkSize, false);
    async function* batches(): AsyncGenerator<SliceEntry[]> {
      let after: SliceRow | undefined;
      do {
        const read = await page(after);
        yield read.entries.map(entryOf);
        after = read.next;
      } while (after);
    }
    const replyEnd = (sent: number): string => `],"resultCount":${sent},"replyEnd":${JSON.stringify(this.clock().toISOString())}`;
    return new SliceStream(streamedJsonList(`${openObject({ replyStart, keyCount: plan.indexes.length })},"documents":[`, batches(), {
      done: (sent) => `${replyEnd(sent)}}`,
      failed: (sent, reason) => `${replyEnd(sent)},"OK":false,"error":${JSON.stringify(`the slice is incomplete after ${sent} documents: ${reason}`)}}`,
    }));
  }

  private resume(token: string, fingerprint: string, limits: SliceLimits): { cursor: SliceRow; count: number; extra: TokenExtra } {
    if (!limits.flowControl) throw badRequest('flow control error: this node does not page slice results, so a resumption_token is not accepted');
    const check = this.tokens.decode(token, SERVICE, fingerprint);
    if (!check.ok) throw badRequest(`flow control error: ${check.reason}`);
    const { k, n, x } = check.payload;
    const extra = x as Partial<TokenExtra> | undefined;
    if (!Array.isArray(k) || typeof k[0] !== 'string' || typeof k[1] !== 'string' || typeof n !== 'number' || typeof extra?.end !== 'string') {
      throw badRequest('flow control error: the resumption token is damaged');
    }
    return { cursor: { ts: k[0], id: k[1] }, count: n, extra: { end: extra.end, ...(extra.via === 'identity' || extra.via === 'tags' ? { via: extra.via } : {}) } };
  }

  /** Rows of the union of the index keys after the cursor, merged and deduplicated, at most `limit`. */
  private async union(indexes: SliceIndexKey[], bounds: SliceBounds, after: SliceRow | undefined, limit: number): Promise<SliceRow[]> {
    // Each range's first `limit` rows suffice: a row among the union's first `limit` has fewer
    // than `limit` rows before it in its own range.
    const ranges = await Promise.all(indexes.map((index) => this.repo.rowsAfter(index, bounds, after, limit)));
    const merged = ranges.flat().sort(compareRows);
    return merged.filter((row, i) => i === 0 || merged[i - 1]?.id !== row.id).slice(0, limit);
  }

  /** Cheap selectivity estimate: up to K keys of each side (no documents); the smaller side wins, identity on a tie. */
  private async moreSelective(identity: SliceIndexKey[], tags: SliceIndexKey[], bounds: SliceBounds, after: SliceRow | undefined): Promise<Via> {
    const [byIdentity, ...byTag] = await Promise.all([...identity, ...tags].map((index) => this.repo.rowsAfter(index, bounds, after, ESTIMATE_K)));
    const tagRows = byTag.reduce((sum, rows) => sum + rows.length, 0);
    return tagRows < (byIdentity?.length ?? 0) ? 'tags' : 'identity';
  }

  private otherCriterion(via: Via, args: SliceArgs): (doc: StoredDoc) => boolean {
    if (via === 'identity') return (doc) => { const tags = tagsOf(doc); return args.tags.some((tag) => tags.has(tag)); };
    return (doc) => identitiesOf(doc).has(args.identity ?? '');
  }

  private async plainPage(indexes: SliceIndexKey[], bounds: SliceBounds, after: SliceRow | undefined, pageSize: number, idsOnly: boolean): Promise<Page> {
    const rows = await this.union(indexes, bounds, after, pageSize + 1);
    const pageRows = rows.slice(0, pageSize);
    const next = rows.length > pageSize ? pageRows[pageRows.length - 1] : undefined;
    if (idsOnly) return { entries: pageRows.map((row) => ({ id: row.id })), next };
    const docs = await this.repo.documents(pageRows.map((row) => row.id));
    // A document deleted between the view read and the fetch is left out of this page.
    const entries = pageRows.flatMap((row) => { const doc = docs.get(row.id); return doc && isLive(doc) ? [{ id: row.id, doc }] : []; });
    return { entries, next };
  }

  /**
   * Reads the chosen index in chunks and keeps the documents matching the other criterion. With
   * flow control the work per request is bounded (SCAN_BUDGET rows): a sparse match may return a
   * short or empty page with a token, which the spec allows ("MAY return fewer results").
   */
  private async filteredPage(indexes: SliceIndexKey[], bounds: SliceBounds, after: SliceRow | undefined, pageSize: number, matches: (doc: StoredDoc) => boolean, flowControl: boolean): Promise<Page> {
    const chunk = Math.min(Math.max(pageSize + 1, 50), 200);
    const found: { row: SliceRow; doc: StoredDoc }[] = [];
    let cursor = after;
    for (let scanned = 0; ;) {
      const rows = await this.union(indexes, bounds, cursor, chunk);
      const docs = await this.repo.documents(rows.map((row) => row.id));
      for (const row of rows) {
        const doc = docs.get(row.id);
        if (doc && isLive(doc) && matches(doc)) found.push({ row, doc });
      }
      scanned += rows.length;
      cursor = rows[rows.length - 1] ?? cursor;
      if (found.length > pageSize) {
        const page = found.slice(0, pageSize);
        return { entries: page.map(({ row, doc }) => ({ id: row.id, doc })), next: page[page.length - 1]?.row };
      }
      const exhausted = rows.length < chunk;
      if (exhausted || (flowControl && scanned >= SCAN_BUDGET)) {
        return { entries: found.map(({ row, doc }) => ({ id: row.id, doc })), next: exhausted ? undefined : cursor };
      }
    }
  }
}

interface PageEntry { id: string; doc?: StoredDoc }
interface Page { entries: PageEntry[]; next: SliceRow | undefined }

interface Plan {
  args: SliceArgs;
  fingerprint: string;
  resumed: { cursor: SliceRow; count: number; extra: TokenExtra } | undefined;
  bounds: SliceBounds;
  pageSize: number;
  via: Via | undefined;
  indexes: SliceIndexKey[];
}


