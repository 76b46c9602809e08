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
 * What is allowed and how bodies are checked and answered: inbound-replication.ts (no HTTP).
 */
import type { Middleware } from 'koa';
import { INBOUND_PATH } from './destination-info.js';
import type { NodeContext, NodeState } from '../../http/context.js';
import { BodyTooLarge, readRawBody } from '../../http/raw-body.js';
import type { Gate } from '../../http/gate.js';
import type { IncomingForwarder } from '../../storage/distribution-proxy.js';
import { AppError } from '../../errors/app-error.js';
import { textNestsDeeperThan } from '../../http/json-body.js';
import { MAX_NESTING } from '../../domain/nesting.js';
import type { InboundReceiver } from './inbound-receiver.js';
import { bulkDocsOf, checkRevisionQuery, isReplicationRequest, refusedAnswer, segmentsOf } from './inbound-replication.js';

const BODY_LIMIT = 256 * 1024 * 1024;

/** 413 as CouchDB answers it (a replicator then splits its batch), in the JSON endpoints' words. */
const tooLarge = (): AppError => new AppError(413, 'payload_too_large', `request body too large: the limit is ${BODY_LIMIT} bytes`);

/** The body up to BODY_LIMIT (a declared length over it is refused before a byte is read), or CouchDB's 413. */
async function readBody(ctx: NodeContext): Promise<Buffer> {
  try {
    return await readRawBody(ctx, BODY_LIMIT);
  } catch (error) {
    throw error instanceof BodyTooLarge ? tooLarge() : error;
  }
}

export function inboundProxy(forwarder: IncomingForwarder, receiver: InboundReceiver, gate: Gate): Middleware<NodeState> {
  return async (ctx, next) => {
    if (ctx.path !== INBOUND_PATH && !ctx.path.startsWith(`${INBOUND_PATH}/`)) return next();
    ctx.state.principal = await gate.admit(ctx.get('authorization'), 'distribute', ctx.ip);
    const segments = segmentsOf(ctx.path);
    if (!segments || !isReplicationRequest(segments, ctx.method)) {
      throw new AppError(403, 'forbidden', `${ctx.method} ${ctx.path} is not part of inbound replication`);
    }
    const hasBody = ctx.method === 'POST' || ctx.method === 'PUT';
    const body = hasBody ? await readBody(ctx) : undefined;
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
