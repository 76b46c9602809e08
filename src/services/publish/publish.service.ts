/**
 * Basic Publish (spec "Publish"): the processing order of the spec, one result per document,
 * one _bulk_docs round trip for the batch (a second one only for tombstones).
 */
import { randomUUID } from 'node:crypto';
import type { NodePolicy } from '../../config/index.js';
import type { Account } from '../../storage/account-repository.js';
import type { NodeRepository, NodeKeys } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { FilterDescription } from '../../domain/filters.js';
import { nodeTimestamp, type Clock } from '../../domain/timestamps.js';
import { keyIdsOfArmored } from '../../domain/replacement.js';
import { replacementRefusal, storeWithTombstones } from './replacement-writes.js';
import { signEnvelope } from '../../domain/signature/lr-pgp.js';
import { AppError } from '../../errors/app-error.js';
import type { CheckContext, DocumentChecks, Envelope, SignatureOutcome } from './document-checks.js';

export interface DocumentResult { doc_ID: string | null; OK: boolean; error?: string }
export interface PublishResponse { OK: boolean; error?: string; document_results: DocumentResult[] }

/** A global failure: `{"OK": false, "error": ...}` with HTTP 500 (spec "Publish", status codes). */
export class PublishRefused extends AppError {
  constructor(message: string) {
    super(500, 'bad_request', message, true);
  }
}

interface Accepted {
  index: number;
  doc: StoredDoc;
  signature: SignatureOutcome;
  replaces: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

export class PublishService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly store: ResourceRepository,
    private readonly checks: DocumentChecks,
    private readonly publicUrl: string,
    private readonly clock: Clock,
  ) {}

  /** `dryRun` (SWORD X-No-Op): every check runs, nothing is written, accepted documents report OK. */
  async publish(body: unknown, account: Account | undefined, docLimit: number | undefined, options: { dryRun?: boolean } = {}): Promise<PublishResponse> {
    // 1. do_not_distribute anywhere in the batch stops everything (spec "Publish", step 1).
    const documents = isRecord(body) ? body.documents : undefined;
    if (Array.isArray(documents) && documents.some((doc) => isRecord(doc) && Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute'))) {
      throw new PublishRefused('cannot publish: a document has a do_not_distribute key');
    }
    // 2. Request validation.
    if (!isRecord(body)) throw new PublishRefused('the request body must be a JSON object {"documents": [...]}');
    if (!Array.isArray(documents)) throw new PublishRefused('missing "documents": an array of resource data description documents');
    if (documents.length === 0) throw new PublishRefused('"documents" is empty');
    if (docLimit !== undefined && docLimit > 0 && documents.length > docLimit) {
      throw new PublishRefused(`too many documents: ${documents.length}, the limit is ${docLimit} (service_data.doc_limit)`);
    }
    const [node, filter, keys] = await Promise.all([this.nodes.nodeDescription(), this.nodes.filterDescription(), this.nodes.nodeKeys()]);
    if (!node || !keys) throw new AppError(503, 'store_unavailable', 'the node is not bootstrapped');
    const policy = node.node_policy as NodePolicy;
    const context: CheckContext = {
      policy, filter: filter as FilterDescription | undefined, accountSubmitter: account?.submitter,
      nodePublicKey: keys.publicKey, nodeKeyLocation: `${this.publicUrl}/pubkey`, mode: 'publish',
    };
    return this.processBatch(documents, context, account, String(node.node_id), keys, options.dryRun === true);
  }

  private async processBatch(documents: unknown[], context: CheckContext, account: Account | undefined, nodeId: string, keys: NodeKeys, dryRun: boolean): Promise<PublishResponse> {
    const results: DocumentResult[] = documents.map((doc) => ({ doc_ID: isRecord(doc) && typeof doc.doc_ID === 'string' ? doc.doc_ID : null, OK: false }));
    const referenced = documents.flatMap((doc) => (isRecord(doc) ? [doc.doc_ID, ...(Array.isArray(doc.replaces) ? doc.replaces : [])] : []))
      .filter((id): id is string => typeof id === 'string' && id.length > 0);
    // The current state of every referenced document, updated as the batch is processed, so a
    // replacement may refer to a document published earlier in the same batch.
    const state = await this.store.getMany(referenced);
    const now = nodeTimestamp(this.clock());
    const nodeKeyIds = await keyIdsOfArmored(keys.publicKey);
    const accepted: Accepted[] = [];
    const inBatch = new Set<string>();

    for (const [index, raw] of documents.entries()) {
      const result = results[index] as DocumentResult;
      if (!isRecord(raw)) { result.error = 'invalid document: not a JSON object'; continue; }
      let doc: Envelope = this.asSubmitted(raw, account);
      if (account && context.policy.proxy_sign && doc.digital_signature === undefined && isRecord(doc.identity) && doc.identity.submitter === account.submitter) {
        doc = await this.proxySign(doc, keys);
      }
      const checked = await this.checks.check(doc, context);
      if (!checked.ok) { result.error = checked.error; continue; }
      const docId = typeof doc.doc_ID === 'string' && doc.doc_ID.length > 0 ? doc.doc_ID : randomUUID().replace(/-/g, '');
      result.doc_ID = docId;
      if (inBatch.has(docId)) { result.error = 'publish failed: doc_ID appears twice in the batch'; continue; }
      const replaces = Array.isArray(doc.replaces) ? doc.replaces.filter((id): id is string => typeof id === 'string' && id !== docId) : [];
      const needsProof = state.has(docId) || replaces.some((id) => state.has(id));
      let signature = checked.signature;
      if (needsProof && signature.verifiedKeyIds.length === 0 && doc.digital_signature !== undefined) {
        // Replacing needs a verified signature even when the node does not verify others.
        const outcome = await this.checks.verifySignature(doc, context);
        if (!outcome.failure) signature = outcome;
      }
      const refusal = await replacementRefusal(docId, doc, replaces, state, signature, nodeKeyIds, context.policy);
      if (refusal) { result.error = refusal; continue; }
      const existing = state.get(docId);
      const stored: StoredDoc = {
        ...doc,
        _id: docId,
        doc_ID: docId,
        // Immutable on a same-doc_ID update: doc_ID, doc_type, create_timestamp and publish_node.
        // publish_node is the spec's name, publishing_node the original nodes' (kept for them).
        publish_node: typeof existing?.publish_node === 'string' ? existing.publish_node : nodeId,
        publishing_node: typeof existing?.publishing_node === 'string' ? existing.publishing_node : nodeId,
        create_timestamp: typeof existing?.create_timestamp === 'string' ? existing.create_timestamp : now,
        update_timestamp: now,
        node_timestamp: now,
        ...(existing?._rev ? { _rev: existing._rev } : {}),
      };
      accepted.push({ index, doc: stored, signature, replaces });
      state.set(docId, stored);
      inBatch.add(docId);
    }
    if (dryRun) for (const entry of accepted) (results[entry.index] as DocumentResult).OK = true;
    else await this.storeAccepted(accepted, results, state, now);
    return { OK: true, document_results: results.map((r) => (r.OK ? { doc_ID: r.doc_ID, OK: true } : r)) };
  }

  /** An account publishing an anonymous document becomes its submitter (spec "Authentication", 2-3). */
  private asSubmitted(raw: Record<string, unknown>, account: Account | undefined): Envelope {
    const identity = isRecord(raw.identity) ? { ...raw.identity } : undefined;
    if (account && identity && (identity.submitter_type === 'anonymous' || !identity.submitter)) {
      identity.submitter = account.submitter;
      identity.submitter_type = 'agent';
      return { ...raw, identity };
    }
    return raw;
  }

  private async proxySign(doc: Envelope, keys: NodeKeys): Promise<Envelope> {
    return signEnvelope(doc, keys.privateKey, undefined, [`${this.publicUrl}/pubkey`]);
  }

  private async storeAccepted(accepted: Accepted[], results: DocumentResult[], state: Map<string, StoredDoc>, now: string): Promise<void> {
    const outcomes = await storeWithTombstones(this.store, accepted, state, now);
    for (const [position, outcome] of outcomes.entries()) {
      const result = results[(accepted[position] as Accepted).index] as DocumentResult;
      if (outcome.ok) result.OK = true;
      else result.error = `publish failed: ${outcome.error}`;
    }
  }
}
