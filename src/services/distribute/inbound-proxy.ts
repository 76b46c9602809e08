/**
 * The inbound endpoint (`/incoming`): the node serves the CouchDB replication protocol for its
 * incoming database, so a source node's CouchDB can replicate into it (CouchDB "Replication
 * Protocol": the target side is db info, `_local` checkpoints, `_revs_diff`, `_bulk_docs`,
 * `_ensure_full_commit`, and `PUT {docid}?new_edits=false` for documents with attachments).
 * Only those requests are forwarded, only with the credentials of an account holding the role
 * `network_admin` (spec "Authentication", 7: distribution is a network operation). Design and
 * `_local/lr-*` documents (the follower's checkpoint) can never be written through it.
 *
 * A replicator's `_bulk_docs` (`new_edits: false`, CouchDB "Replication Protocol" 2.4.2.5.2) is
 * not forwarded: its documents go through inbound distribution here and are stored once, in
 * resource_data (issue 15: one write per document at the destination, where the incoming
 * database cost two more, the copy and its removal). The answer is CouchDB's for a batch of that
 * kind once every document is stored, a duplicate, or refused (refusedAnswer); when a conflict
 * leaves one to retry, a 503, so the replicator sends the batch again (the stored part is then
 * a duplicate). The checkpoints (`_local`) and `_revs_diff` still go to the incoming database.
 */
import { INBOUND_PATH } from './destination-info.js';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import type { IncomingForwarder } from '../../storage/distribution-proxy.js';
import type { StoredDoc } from '../../storage/documents.js';
import { AppError } from '../../errors/app-error.js';
import { textNestsDeeperThan } from '../../http/json-body.js';
import { MAX_NESTING } from '../../domain/nesting.js';
import type { InboundReceiver } from './inbound-receiver.js';
import type { Rejection } from './inbound.service.js';
import { winningRevisions } from '../../domain/revisions.js';
import { holdsIllFormedText } from '../../domain/well-formed-text.js';
import { isRecord } from '../../domain/is-record.js';

const BODY_LIMIT = 256 * 1024 * 1024;

/** 413 as CouchDB answers it (a replicator then splits its batch), in the JSON endpoints' words. */
const tooLarge = (): AppError => new AppError(413, 'payload_too_large', `request body too large: the limit is ${BODY_LIMIT} bytes`);

type Rule = (segments: string[], method: string) => boolean;

const RULES: Rule[] = [
  (s, m) => s.length === 0 && (m === 'GET' || m === 'HEAD'),
  (s, m) => s.length === 2 && s[0] === '_local' && !(s[1] ?? '').startsWith('lr-') && (m === 'GET' || m === 'PUT' || m === 'HEAD'),
  (s, m) => s.length === 1 && ['_revs_diff', '_missing_revs', '_bulk_docs', '_ensure_full_commit'].includes(s[0] ?? '') && m === 'POST',
  (s, m) => s.length === 1 && !(s[0] ?? '_').startsWith('_') && m === 'PUT',
];

/** Path segments after /incoming, decoded (`a%2Fb` is one document id). */
function segmentsOf(path: string): string[] | undefined {
  try {
    const segments = path.slice(INBOUND_PATH.length).split('/').filter((part) => part.length > 0).map(decodeURIComponent);
    // '.' and '..' (also written %2e) are dot-segments to a URL parser (RFC 3986 §5.2.4, WHATWG
    // URL): forwarded, `/incoming/..` would reach the store's root. No document has such an id.
    return segments.some((segment) => segment === '.' || segment === '..') ? undefined : segments;
  } catch {
    return undefined;
  }
}

/** The body up to BODY_LIMIT; a declared length over it is refused before a byte is read. */
async function readBody(stream: IncomingMessage, declaredLength: number | undefined): Promise<Buffer> {
  try {
    return await getRawBody(stream, { limit: BODY_LIMIT, length: declaredLength });
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw tooLarge();
    throw error;
  }
}

function parsedBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError(400, 'invalid_request', 'request body is not valid JSON');
  }
}

/**
 * A special member whose shape CouchDB refuses (400 doc_validation "Bad special document member",
 * for the whole request). The embedded store (PouchDB) does not check it and fails with a 500
 * TypeError instead (found by the generated /incoming requests: `"_attachments": "x"`), so the
 * node answers as CouchDB does before the request reaches either store.
 */
function badSpecialMember(doc: Record<string, unknown>): string | undefined {
  const attachments = doc._attachments;
  if (attachments !== undefined && (!isRecord(attachments) || !Object.values(attachments).every(isRecord))) return '_attachments';
  const revisions = doc._revisions;
  if (revisions !== undefined && (!isRecord(revisions) || typeof revisions.start !== 'number' || !Array.isArray(revisions.ids))) return '_revisions';
  return undefined;
}

/**
 * `_revs_diff` and `_missing_revs` take an object of doc id → array of revisions (CouchDB
 * "Replication Protocol" 2.4.2.3.2). CouchDB refuses any other body (400, or its own 500
 * function_clause for a non-array value); the embedded store (PouchDB) crashed on a non-array
 * value for a stored id (found by the generated /incoming requests), so neither sees one.
 */
function checkRevisionQuery(body: Buffer, endpoint: string): void {
  const parsed = parsedBody(body);
  if (!isRecord(parsed) || !Object.values(parsed).every((revs) => Array.isArray(revs) && revs.every((rev) => typeof rev === 'string'))) {
    throw new AppError(400, 'invalid_request', `${endpoint} needs a JSON object of document id to an array of revisions`);
  }
}

/** `_bulk_docs` may carry resource documents only: an id starting with `_` would be a design or local document. */
function bulkDocsOf(body: Buffer): { docs: StoredDoc[]; newEdits: boolean } {
  const parsed = parsedBody(body);
  const docs = (parsed as { docs?: unknown } | null)?.docs;
  if (!Array.isArray(docs)) throw new AppError(400, 'invalid_request', '_bulk_docs needs "docs"');
  for (const doc of docs) {
    const id = (doc as { _id?: unknown } | null)?._id;
    if (typeof id !== 'string' || id.startsWith('_')) throw new AppError(403, 'forbidden', 'only resource documents may be replicated to this node');
    const member = badSpecialMember(doc as Record<string, unknown>);
    if (member) throw new AppError(400, 'invalid_request', `Bad special document member: ${member}`);
  }
  const newEdits = (parsed as { new_edits?: unknown }).new_edits;
  // CouchDB answers its own 500 function_clause to a new_edits that is not a boolean (e.g. "false").
  if (newEdits !== undefined && typeof newEdits !== 'boolean') throw new AppError(400, 'invalid_request', 'new_edits must be true or false');
  if (holdsIllFormedText(docs)) throw new AppError(400, 'invalid_request', 'documents must be well-formed Unicode text (a lone surrogate cannot be stored)');
  return { docs: docs as StoredDoc[], newEdits: newEdits !== false };
}

/**
 * CouchDB's answer to a replicated `_bulk_docs` (201) lists the documents it did not write, each
 * `{id, rev, error, reason}`. A document the node's rules refuse is `forbidden`, what CouchDB
 * answers for a validate_doc_update refusal: the source's replicator counts it in
 * doc_write_failures and goes on without sending it again (CouchDB 3, couch_replicator_worker's
 * handle_flush_docs_result; PouchDB 9's replicate, writeDocs, which fails the replication on any
 * other error), so the source reports it (`docs_refused`). A refusal that may pass (a signer's
 * key location did not answer, the store refused the write) is parked and tried again
 * (parked-documents.ts), so it is not among the refusals: the node took the document in. Only
 * when it could not be parked either is it answered refused, saying so: neither replicator sends
 * again a document it was told was written or refused, and one left out of the answer would be
 * counted written although it was not kept.
 */
function refusedAnswer(rejected: Rejection[], docs: StoredDoc[]): { id: string; rev: unknown; error: 'forbidden'; reason: string }[] {
  const revisions = new Map(winningRevisions(docs).map((doc) => [doc._id, doc._rev]));
  return rejected.map((rejection) => ({
    id: rejection.id, rev: revisions.get(rejection.id), error: 'forbidden',
    reason: rejection.transient === true ? `${rejection.error} (this may pass, but the node could not keep the document to try it again: it is not sent again unless it is published again)` : rejection.error,
  }));
}

export function inboundProxy(forwarder: IncomingForwarder, receiver: InboundReceiver, gate: Gate): Middleware<NodeState> {
  return async (ctx, next) => {
    if (ctx.path !== INBOUND_PATH && !ctx.path.startsWith(`${INBOUND_PATH}/`)) return next();
    ctx.state.principal = await gate.admit(ctx.get('authorization'), 'distribute', ctx.ip);
    const segments = segmentsOf(ctx.path);
    if (!segments || !RULES.some((rule) => rule(segments, ctx.method))) {
      throw new AppError(403, 'forbidden', `${ctx.method} ${ctx.path} is not part of inbound replication`);
    }
    const hasBody = ctx.method === 'POST' || ctx.method === 'PUT';
    const body = hasBody ? await readBody(ctx.req, ctx.request.length) : undefined;
    if (body && textNestsDeeperThan(body, MAX_NESTING)) throw new AppError(400, 'invalid_request', `request body nests deeper than ${MAX_NESTING} levels`);
    if (body && (segments[0] === '_revs_diff' || segments[0] === '_missing_revs')) checkRevisionQuery(body, segments[0]);
    if (body && segments[0] === '_bulk_docs') {
      const bulk = bulkDocsOf(body);
      if (!bulk.newEdits) {
        const live = bulk.docs.filter((doc) => !doc._deleted);
        const result = await receiver.receive(live);
        if (result.failed.length > 0) throw new AppError(503, 'store_unavailable', `${result.failed.length} documents met a conflict; send the batch again`, true, { retryAfter: 1 });
        ctx.status = 201;
        ctx.body = refusedAnswer(result.rejected, live);
        return;
      }
    }
    const subpath = segments.length ? `/${segments.map(encodeURIComponent).join('/').replace(/^_local%2F|^_local\//, '_local/')}` : '/';
    const response = await forwarder.forward({ method: ctx.method, subpath, search: ctx.search, contentType: ctx.get('content-type') || undefined, body });
    ctx.status = response.status;
    if (response.contentType) ctx.type = response.contentType;
    ctx.body = response.body ?? '';
  };
}
