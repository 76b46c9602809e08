/**
 * What inbound replication (`/incoming`, inbound-proxy.http.ts) lets through and answers, on plain
 * data, without HTTP: which requests of the CouchDB replication protocol are allowed (CouchDB
 * "Replication Protocol": db info, `_local` checkpoints other than the node's own `_local/lr-*`,
 * `_revs_diff`, `_missing_revs`, `_bulk_docs`, `_ensure_full_commit`, and `PUT {docid}` for
 * documents with attachments), the checks of their bodies that CouchDB makes and the embedded
 * store does not, and CouchDB's answer to a replicated `_bulk_docs` the node checked itself.
 */
import { INBOUND_PATH } from './destination-info.js';
import type { StoredDoc } from '../../storage/documents.js';
import { AppError } from '../../errors/app-error.js';
import type { Rejection } from './inbound.service.js';
import { winningRevisions } from '../../domain/revisions.js';
import { holdsIllFormedText } from '../../domain/well-formed-text.js';
import { isRecord } from '../../domain/is-record.js';

type Rule = (segments: string[], method: string) => boolean;

const RULES: Rule[] = [
  (s, m) => s.length === 0 && (m === 'GET' || m === 'HEAD'),
  (s, m) => s.length === 2 && s[0] === '_local' && !(s[1] ?? '').startsWith('lr-') && (m === 'GET' || m === 'PUT' || m === 'HEAD'),
  (s, m) => s.length === 1 && ['_revs_diff', '_missing_revs', '_bulk_docs', '_ensure_full_commit'].includes(s[0] ?? '') && m === 'POST',
  (s, m) => s.length === 1 && !(s[0] ?? '_').startsWith('_') && m === 'PUT',
];

/** Path segments after /incoming, decoded (`a%2Fb` is one document id). */
export function segmentsOf(path: string): string[] | undefined {
  try {
    const segments = path.slice(INBOUND_PATH.length).split('/').filter((part) => part.length > 0).map(decodeURIComponent);
    // '.' and '..' (also written %2e) are dot-segments to a URL parser (RFC 3986 §5.2.4, WHATWG
    // URL): forwarded, `/incoming/..` would reach the store's root. No document has such an id.
    return segments.some((segment) => segment === '.' || segment === '..') ? undefined : segments;
  } catch {
    return undefined;
  }
}

/** Whether a request (its path segments after /incoming and its method) is part of inbound replication. */
export function isReplicationRequest(segments: string[], method: string): boolean {
  return RULES.some((rule) => rule(segments, method));
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
export function checkRevisionQuery(body: Buffer, endpoint: string): void {
  const parsed = parsedBody(body);
  if (!isRecord(parsed) || !Object.values(parsed).every((revs) => Array.isArray(revs) && revs.every((rev) => typeof rev === 'string'))) {
    throw new AppError(400, 'invalid_request', `${endpoint} needs a JSON object of document id to an array of revisions`);
  }
}

/** `_bulk_docs` may carry resource documents only: an id starting with `_` would be a design or local document. */
export function bulkDocsOf(body: Buffer): { docs: StoredDoc[]; newEdits: boolean } {
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
export function refusedAnswer(rejected: Rejection[], docs: StoredDoc[]): { id: string; rev: unknown; error: 'forbidden'; reason: string }[] {
  const revisions = new Map(winningRevisions(docs).map((doc) => [doc._id, doc._rev]));
  return rejected.map((rejection) => ({
    id: rejection.id, rev: revisions.get(rejection.id), error: 'forbidden',
    reason: rejection.transient === true ? `${rejection.error} (this may pass, but the node could not keep the document to try it again: it is not sent again unless it is published again)` : rejection.error,
  }));
}
