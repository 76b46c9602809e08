/**
 * Basic Publish (spec "Publish"): the processing order of the spec, one result per document,
 * one _bulk_docs round trip for a batch of new documents (another for tombstones, and one read
 * and write more only for supplied doc_IDs that turn out to exist).
 */
import { randomUUID } from 'node:crypto';
import type { Account } from '../../storage/account-repository.js';
import type { NodeKeys } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { ArmoredKeyIds } from '../../domain/replacement.js';
import { OWNER_FIELD } from '../../domain/ownership.js';
import { XML_CHECK_FIELD } from '../../domain/node-private-fields.js';
import type { XmlCheckRecord } from '../../protocol/oai-pmh/metadata-fragment.js';
import { withoutNodePrivateFields } from '../../domain/resource-document.js';
import { REPLACED_DOC_ID, notHeldOf, replacementProof, replacementRecheck, replacementRefusal, settleWrites, supersedingTombstone, type OwnedBy, type WriteOutcome } from '../intake/replacement-writes.js';
import { BatchContextReader, type NodeDocuments } from '../intake/batch-context.js';
import { IntakePipeline, type IntakeEntry, type IntakePass, type IntakeSteps } from '../intake/intake-pipeline.js';
import type { SignOutcome } from '../../domain/signature/signature-jobs.js';
import { specRefusal, type SpecRefusal } from '../../errors/app-error.js';
import type { CheckContext, DocumentIntake, Envelope, SignatureOutcome } from '../intake/document-checks.js';
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import { isRecord } from '../../domain/is-record.js';
import { MAX_NESTING, nestsDeeperThan } from '../../domain/nesting.js';
import { timestampAfter } from '../../domain/timestamps.js';
import { replacedBy, replacedInBatch } from '../../domain/replaces.js';

export interface DocumentResult { doc_ID: string | null; OK: boolean; error?: string }

export interface PublishResponse { OK: boolean; error?: string; document_results: DocumentResult[] }

const TWICE_IN_BATCH = 'rejected: doc_ID appears twice in the batch (send the later version in a request of its own)';

/** A global failure: `{"OK": false, "error": ...}` with the spec's HTTP 500 (spec "Publish", status codes; errors/app-error.ts SpecRefusal). */
const refused = (message: string): SpecRefusal => specRefusal('invalid_request', message);

type Accepted = IntakeEntry & {
  index: number;
  /** The document as submitted (after proxy signing); `doc` is its stored form. */
  source: Envelope;
  /** Set by a dry run when the update rules refuse it. */
  refused?: string;
  /** The record of the check of its inline XML, kept on the stored document (document-checks.ts). */
  xmlCheck?: XmlCheckRecord;
};

/** Where proxy signatures are made (the signature worker pool, src/domain/signature/signature-pool.ts). */
export interface EnvelopeSigner {
  sign(doc: Record<string, unknown>, privateKey: string, passphrase: string | undefined, keyLocations: string[]): Promise<SignOutcome>;
}

/**
 * Holds the answer to a batch that stored documents until the view indexes trail the database by
 * no more than a limit (PUBLISH_MAX_INDEX_LAG, src/storage/index-pacer.ts); absent, it is never
 * held. It resolves however far behind the indexes stay (bounded there): the documents are stored.
 */
export interface PublishPacing { withinLimit(): Promise<string> }

/** One submitted document after the per-document checks (which run for the whole batch at once). */
type Checked = { error: string } | { doc: Envelope; signature: SignatureOutcome; xmlCheck?: XmlCheckRecord };


/** What a batch's decisions need beside the pipeline's pass (intake-pipeline.ts). */
interface PublishRequest { context: CheckContext; nodeId: string; account: Account | undefined; ownership: Ownership | undefined }

/** The publishing account as its documents record it (the pseudonym: domain/ownership.ts), and whether it owns a stored one. */
interface Ownership { record: string; ownedBy: OwnedBy }

export class PublishService {
  private readonly nodeKeyIds = new ArmoredKeyIds();
  private readonly pipeline: IntakePipeline;
  private readonly contexts: BatchContextReader;

  constructor(
    private readonly intake: DocumentIntake,
    private readonly metrics: NodeMetrics,
    private readonly signer: EnvelopeSigner,
    private readonly pacing?: PublishPacing,
  ) {
    this.pipeline = new IntakePipeline(intake);
    this.contexts = new BatchContextReader(intake);
  }

  /** The node documents a batch is checked against (batch-context.ts); a route may start the read early and pass it in. */
  readNodeDocuments(): Promise<NodeDocuments> {
    return this.contexts.read();
  }

  /**
   * `dryRun` (SWORD X-No-Op): every check runs, nothing is written, accepted documents report OK.
   * `heavy`: runs the batch's checks and writes (the route's turn among heavy requests,
   * src/http/request-slots.ts); the wait for the indexes after them (PublishPacing) is outside
   * it, so publish requests held there never keep list pages from running.
   */
  async publish(body: unknown, account: Account | undefined, docLimit: number | undefined, options: { dryRun?: boolean; nodeDocuments?: Promise<NodeDocuments>; heavy?: <T>(work: () => Promise<T>) => Promise<T> } = {}): Promise<PublishResponse> {
    // 1. do_not_distribute anywhere in the batch stops everything (spec "Publish", step 1).
    const documents = isRecord(body) ? body.documents : undefined;
    if (Array.isArray(documents) && documents.some((doc) => isRecord(doc) && Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute'))) {
      throw refused('cannot publish: a document has a do_not_distribute key');
    }
    // 2. Request validation.
    if (!isRecord(body)) throw refused('the request body must be a JSON object {"documents": [...]}');
    if (!Array.isArray(documents)) throw refused('missing "documents": an array of resource data description documents');
    if (documents.length === 0) throw refused('"documents" is empty');
    if (docLimit !== undefined && docLimit > 0 && documents.length > docLimit) {
      throw refused(`too many documents: ${documents.length}, the limit is ${docLimit} (service_data.doc_limit)`);
    }
    const { context, node, keys } = this.contexts.contextOf(await (options.nodeDocuments ?? this.readNodeDocuments()), 'publish', documents, account?.submitter);
    const batch = (): Promise<PublishResponse> => this.processBatch(documents, context, account, String(node.node_id), keys, options.dryRun === true);
    const response = await (options.heavy ? options.heavy(batch) : batch());
    if (this.pacing && options.dryRun !== true && response.document_results.some((result) => result.OK)) await this.paced(this.pacing);
    return response;
  }

  /** The answer waits for the indexes (PublishPacing); the documents are stored already. */
  private async paced(pacing: PublishPacing): Promise<void> {
    const started = process.hrtime.bigint();
    const outcome = await pacing.withinLimit();
    this.metrics.publishPaced(outcome, Number(process.hrtime.bigint() - started) / 1e9);
  }

  private async processBatch(documents: unknown[], context: CheckContext, account: Account | undefined, nodeId: string, keys: NodeKeys, dryRun: boolean): Promise<PublishResponse> {
    const results: DocumentResult[] = documents.map((doc) => ({ doc_ID: isRecord(doc) && typeof doc.doc_ID === 'string' ? doc.doc_ID : null, OK: false }));
    // The current state of every referenced document, updated as the batch is processed, so a
    // replacement may refer to a document published earlier in the same batch (intake-pipeline.ts).
    const replaced = replacedInBatch(documents);
    const { owners } = this.intake;
    const ownership = account ? { record: owners.of(account.name), ownedBy: (doc: StoredDoc) => owners.isOwnedBy(doc, account) } : undefined;
    const request: PublishRequest = { context, nodeId, account, ownership };
    const ran = await this.pipeline.run(
      { inputs: documents, replaced, nodeKeyIds: this.nodeKeyIds.of(keys.publicKey), recheck: (nodeKeyIds) => replacementRecheck(nodeKeyIds, context.policy, ownership?.ownedBy), dryRun },
      this.steps(request, results, keys),
    );
    if (!ran) throw new Error('a publish batch has at least one document');
    if (dryRun) {
      await this.resolveExisting(ran.decided, ran.pass, request);
      for (const entry of ran.decided) {
        const result = results[entry.index] as DocumentResult;
        if (entry.refused) result.error = entry.refused;
        else result.OK = true;
      }
    } else {
      this.metrics.publishResults(results);
    }
    return { OK: true, document_results: results.map((r) => (r.OK ? { doc_ID: r.doc_ID, OK: true } : r)) };
  }

  /** Publish's part of the pipeline: its checks, its decisions, and each document's result. */
  private steps(request: PublishRequest, results: DocumentResult[], keys: NodeKeys): IntakeSteps<unknown, { index: number; outcome: Checked }, Accepted> {
    const resultOf = (index: number): DocumentResult => results[index] as DocumentResult;
    return {
      // The checks of each document (proxy signing and signature verification in the worker pool)
      // run for the whole slice at once; what depends on the order of the batch follows, in order.
      check: async (slice, offset) => (await Promise.all(slice.map((raw) => this.checkDocument(raw, request.context, request.account, keys))))
        .map((outcome, position) => ({ index: offset + position, outcome })),
      decide: async (checked, pass) => {
        const accepted: Accepted[] = [];
        for (const { index, outcome } of checked) {
          const result = resultOf(index);
          if ('error' in outcome) { result.error = outcome.error; continue; }
          const { doc } = outcome;
          const supplied = typeof doc.doc_ID === 'string' && doc.doc_ID.length > 0;
          // A URI (RFC 4122 urn:uuid), so OAI-PMH harvesters that expect URI identifiers accept it as it is.
          const docId = supplied ? String(doc.doc_ID) : `urn:uuid:${randomUUID()}`;
          result.doc_ID = docId;
          // Refused, not a storage failure ("publish failed" is the spec's text for one): the
          // first version is decided and written with the batch, the second would race it.
          if (pass.inBatch.has(docId)) { result.error = TWICE_IN_BATCH; continue; }
          const replaces = replacedBy(doc, docId);
          const prepared = await this.prepare({ index, source: doc, signature: outcome.signature, replaces, optimistic: supplied && !pass.state.has(docId), ...(outcome.xmlCheck ? { xmlCheck: outcome.xmlCheck } : {}) }, docId, pass, request);
          if ('error' in prepared) { result.error = prepared.error; continue; }
          accepted.push(prepared);
          pass.state.set(docId, prepared.doc);
          pass.inBatch.add(docId);
        }
        return accepted;
      },
      decideAgain: async (entry, pass) => {
        const prepared = await this.prepare({ ...entry, optimistic: false }, entry.doc._id, pass, request);
        if (!('error' in prepared)) return prepared;
        resultOf(entry.index).error = prepared.error;
        return undefined;
      },
      record: (entries, outcomes) => this.recordWrites(entries, outcomes, results),
      giveUp: (entries, rounds) => {
        for (const entry of entries) resultOf(entry.index).error = `publish failed: conflict (the document changed ${rounds} times while this request wrote it)`;
      },
    };
  }

  /** Replacement policy against what is known of the stored documents, then the stored form. */
  private async prepare(entry: Omit<Accepted, 'doc'>, docId: string, pass: IntakePass, request: PublishRequest): Promise<Accepted | { error: string }> {
    const { state } = pass;
    const { context, ownership } = request;
    // Any `replaces` needs the proof: what is not held gets an advance tombstone only with it.
    const needsProof = state.has(docId) || entry.replaces.length > 0;
    const signature = needsProof ? await replacementProof(this.intake.checks, entry.source, context, entry.signature) : entry.signature;
    const refusal = await replacementRefusal(docId, entry.source, entry.replaces, state, signature, pass.nodeKeyIds, context.policy, ownership?.ownedBy);
    if (refusal) return { error: refusal };
    const existing = state.get(docId);
    // After the version it replaces, even when a racing request wrote that one in between.
    const stamp = timestampAfter(timestampAfter(pass.now, existing?.update_timestamp), existing?.node_timestamp);
    const doc: StoredDoc = {
      ...entry.source,
      _id: docId,
      doc_ID: docId,
      // Immutable on a same-doc_ID update: doc_ID, doc_type, create_timestamp and publish_node.
      // publish_node is the spec's name, publishing_node the original nodes' (kept for them).
      publish_node: typeof existing?.publish_node === 'string' ? existing.publish_node : request.nodeId,
      publishing_node: typeof existing?.publishing_node === 'string' ? existing.publishing_node : request.nodeId,
      create_timestamp: typeof existing?.create_timestamp === 'string' ? existing.create_timestamp : pass.now,
      update_timestamp: stamp,
      node_timestamp: stamp,
      // The owner (node-private, src/domain/ownership.ts): the account that publishes this version,
      // recorded by its pseudonym, since replication carries the field to peers.
      ...(ownership ? { [OWNER_FIELD]: ownership.record } : {}),
      ...(entry.xmlCheck ? { [XML_CHECK_FIELD]: entry.xmlCheck } : {}),
      ...(existing?._rev ? { _rev: existing._rev } : {}),
    };
    // Its replacement came first (an advance tombstone): stored as its tombstone, and answered as a
    // replaced doc_ID is (recordWrites); what it replaces itself is still replaced.
    const tombstone = await supersedingTombstone(existing, doc, pass.nodeKeyIds, context.policy, pass.now, this.intake.owners);
    const written = tombstone ? { doc: tombstone, supersededOriginal: doc } : { doc };
    return { ...entry, signature, notHeld: notHeldOf(entry.replaces, state), ...written };
  }

  /** For a dry run: reads the optimistic documents that exist and applies the update rules to them. */
  private async resolveExisting(accepted: Accepted[], pass: IntakePass, request: PublishRequest): Promise<void> {
    const optimistic = accepted.filter((entry) => entry.optimistic);
    const found = await this.intake.store.getMany(optimistic.map((entry) => entry.doc._id));
    for (const entry of optimistic) {
      const existing = found.get(entry.doc._id);
      if (!existing) continue;
      pass.state.set(entry.doc._id, existing);
      const prepared = await this.prepare(entry, entry.doc._id, pass, request);
      if ('error' in prepared) entry.refused = prepared.error;
      else if (prepared.supersededOriginal) entry.refused = REPLACED_DOC_ID;
    }
  }

  /**
   * An account publishing a document that names no submitter becomes its submitter (spec
   * "Authentication", 2-3: every publisher has an account). What a document states is kept:
   * - `submitter_type: "anonymous"` stays anonymous, so the node policy's anonymous check
   *   (spec "Processing order", step 3) decides, and the publisher is not named against its will
   *   (the account still owns the document, in a node-private field);
   * - a signed document is never changed, since its signature covers its identity (LR-PGP.1.0).
   */
  private asSubmitted(submitted: Record<string, unknown>, account: Account | undefined): Envelope {
    // A node-private field is the node's to set, never the publisher's (src/domain/ownership.ts).
    const raw = withoutNodePrivateFields(submitted);
    const identity = isRecord(raw.identity) ? { ...raw.identity } : undefined;
    if (account && identity && !identity.submitter && identity.submitter_type !== 'anonymous' && raw.digital_signature === undefined) {
      identity.submitter = account.submitter;
      identity.submitter_type ??= 'agent';
      return { ...raw, identity };
    }
    return raw;
  }

  /** Steps 3-4 of one document: its submitted form, the proxy signature when due, then the checks. */
  private async checkDocument(raw: unknown, context: CheckContext, account: Account | undefined, keys: NodeKeys): Promise<Checked> {
    if (!isRecord(raw)) return { error: 'invalid document: not a JSON object' };
    // Before proxy signing, whose canonical hash walks the document recursively.
    if (nestsDeeperThan(raw, MAX_NESTING)) return { error: `invalid document: it nests arrays and objects deeper than ${MAX_NESTING} levels` };
    let doc: Envelope = this.asSubmitted(raw, account);
    let signedByNode: SignatureOutcome | undefined;
    if (this.proxySigns(doc, account, context)) {
      const keyLocations = [context.nodeKeyLocation];
      const signed = await this.signer.sign(doc, keys.privateKey, undefined, keyLocations);
      doc = { ...doc, digital_signature: signed.digital_signature };
      signedByNode = { verifiedKeyIds: [signed.keyId], fingerprint: signed.fingerprint, keyLocations };
    }
    const checked = await this.intake.checks.check(doc, context, signedByNode);
    if (!checked.ok) return { error: checked.error };
    // The node's own signature is as good as verified, for the replacement rules too.
    return { doc, signature: signedByNode ?? checked.signature, ...(checked.xmlCheck ? { xmlCheck: checked.xmlCheck } : {}) };
  }

  /** The node signs an unsigned document an account publishes as its own submitter (policy `proxy_sign`). */
  private proxySigns(doc: Envelope, account: Account | undefined, context: CheckContext): account is Account {
    return account !== undefined && context.policy.proxy_sign === true && doc.digital_signature === undefined && isRecord(doc.identity) && doc.identity.submitter === account.submitter;
  }

  /** Records the outcome of each write; returns the writes that met another version of their doc_ID. */
  private recordWrites(entries: Accepted[], outcomes: WriteOutcome[], results: DocumentResult[]): Accepted[] {
    return settleWrites(entries, outcomes, (entry, outcome) => {
      const result = results[entry.index] as DocumentResult;
      if (!outcome.ok) result.error = `publish failed: ${outcome.error}`;
      // A superseded original is stored as its tombstone: its doc_ID is replaced (prepare).
      else if (entry.supersededOriginal) result.error = REPLACED_DOC_ID;
      else result.OK = true;
    });
  }
}
