/**
 * The per-document checks common to publish and inbound distribution (spec "Rules common to
 * publish and inbound distribution" and Publish step 3), in the spec's order. Each failure is
 * the spec's suggested wording. Inbound distribution runs the same checks on stored-form
 * documents, without the anonymous-submission check (the destination process does not list it).
 */
import type { Logger } from 'pino';
import type { NodePolicy, PolicyReader } from '../../config/index.js';
import type { EnvelopeValidator } from '../../validation/envelope-validator.js';
import type { DocumentFilter, FilterDescription } from '../../domain/filters.js';
import type { VerifyResult } from '../../domain/signature/lr-pgp-verify.js';
import type { KeyBatch, KeyResolver } from './key-resolver.js';
import { inlineXmlCheck } from './inline-xml.js';
import type { XmlCheckRecord } from '../../protocol/oai-pmh/metadata-fragment.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { Clock } from '../../domain/timestamps.js';
import type { OwnerPseudonyms } from '../../domain/ownership.js';
import { holdsIllFormedText } from '../../domain/well-formed-text.js';

export type Envelope = Record<string, unknown>;

export interface CheckContext {
  policy: NodePolicy;
  filter: FilterDescription | undefined;
  /** Submitter identity of the authenticated account, trusted like policy.trusted_submitters. */
  accountSubmitter: string | undefined;
  /** Armored public key of this node, for documents it proxy-signed. */
  nodePublicKey: string;
  nodeKeyLocation: string;
  mode: 'publish' | 'inbound';
  /** The key lookups of the batch being checked (each key location resolved once per batch). */
  keyBatch?: KeyBatch;
}

/** Where signatures are verified (the signature worker pool, src/domain/signature/signature-pool.ts). */
export interface SignatureVerifier {
  verify(doc: unknown, publicKeys: string[]): Promise<VerifyResult>;
}

export interface SignatureOutcome {
  /** Issuer key ids of a signature verified against the signer's key; empty when not verified. */
  verifiedKeyIds: string[];
  fingerprint: string | undefined;
  keyLocations: string[];
  /**
   * A signature that could not be verified (replacementProof): `reason` names the cause (the key
   * location and why its key could not be fetched); `transient`: a key location did not answer,
   * it may later.
   */
  unverified?: { reason: string; transient: boolean };
}

/**
 * A signature that failed: `failure` says why, in the signature check's words; `cause`, in the
 * replacement rules' (SignatureOutcome.unverified); `transient`, as there.
 */
export type SignatureFailure = { failure?: string; cause?: string; transient?: boolean };

/** The refusal of a document the node's active filters leave out (spec "Publish": `rejected by filter`). */
export const FILTERED = 'rejected by filter';

/**
 * `xmlCheck`: the record of publish's check of inline XML, for the stored document (inline-xml.ts).
 * `transient`: the refusal may not hold later (a signer's key location did not answer).
 */
export type CheckResult = { ok: true; signature: SignatureOutcome; xmlCheck?: XmlCheckRecord } | { ok: false; error: string; transient?: boolean };

/**
 * CouchDB treats an id beginning with "_" specially (`_design/`, `_local/`, or refused outright,
 * which fails a whole `_bulk_docs`): such a doc_ID, or a `replaces` entry naming one, is refused
 * per document (CouchDB "Document ID": ids starting with an underscore are reserved). So is a
 * document holding text CouchDB cannot store (src/domain/well-formed-text.ts).
 */
function storeRefusalError(doc: Envelope): string | undefined {
  if (holdsIllFormedText(doc)) return 'invalid document: text must be well-formed Unicode (a lone surrogate, e.g. "\\ud800", cannot be stored)';
  if (typeof doc.doc_ID === 'string' && doc.doc_ID.startsWith('_')) return 'invalid document: doc_ID must not begin with "_" (reserved by the store)';
  if (Array.isArray(doc.replaces) && doc.replaces.some((id) => typeof id === 'string' && id.startsWith('_'))) {
    return 'invalid document: replaces must not name an id beginning with "_" (reserved by the store)';
  }
  if (typeof doc.doc_ID === 'string' && CONTROL.test(doc.doc_ID)) return 'invalid document: doc_ID must not hold control characters (U+0000-U+001F, U+007F-U+009F)';
  // A URL parser takes them for dot-segments (RFC 3986 §5.2.4): /resource_data/.. is the server's root.
  if (doc.doc_ID === '.' || doc.doc_ID === '..') return 'invalid document: doc_ID must not be "." or ".." (a URL path would resolve it away)';
  return undefined;
}

/**
 * An identifier travels in URLs and in XML, where C0 controls cannot appear at all (XML 1.0 §2.2)
 * and tabs and newlines in an attribute become spaces: an OAI-PMH harvester would see another
 * identifier than JSON harvest's, and could not ask for it back.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const identityOf = (doc: Envelope): Record<string, unknown> => (doc.identity as Record<string, unknown> | undefined) ?? {};

export class DocumentChecks {
  constructor(
    private readonly validator: EnvelopeValidator,
    private readonly filter: DocumentFilter,
    private readonly keys: KeyResolver,
    private readonly verifier: SignatureVerifier,
    /** The node policy as stored (node_policy), checked: config/stored-policy.ts. */
    readonly policyOf: PolicyReader,
  ) {}

  /**
   * The key lookups of one batch. With verification on, the key cache entries of every signature
   * in the batch are read in one request (not one read per document).
   */
  keyBatch(documents: unknown[], policy: NodePolicy): KeyBatch {
    const batch = this.keys.batch(policy.allow_private_fetch);
    if (policy.verify_signatures) batch.prefetch(documents.map((doc) => (doc as { digital_signature?: { key_location?: unknown } } | null)?.digital_signature?.key_location));
    return batch;
  }

  /** Verifies the signature against the keys at its key_location (or this node's key). */
  async verifySignature(doc: Envelope, context: CheckContext): Promise<SignatureOutcome & SignatureFailure> {
    const block = doc.digital_signature as { key_location?: unknown } | undefined;
    const keyLocations = Array.isArray(block?.key_location) ? block.key_location.filter((l): l is string => typeof l === 'string') : [];
    const ownKey = keyLocations.includes(context.nodeKeyLocation);
    const keyBatch = context.keyBatch ?? this.keys.batch(context.policy.allow_private_fetch);
    const resolved = ownKey ? { keys: [context.nodePublicKey], failures: [], transient: false } : await keyBatch.keysAt(keyLocations);
    if (resolved.keys.length === 0) {
      const failure = `no public key could be fetched${resolved.failures.length ? ` (${resolved.failures.join('; ')})` : ''}`;
      const cause = resolved.failures.length ? `the signer's key could not be fetched from ${resolved.failures.join('; ')}` : 'the signature names no key location';
      return { verifiedKeyIds: [], fingerprint: undefined, keyLocations, failure, cause, transient: resolved.transient };
    }
    const result = await this.verifier.verify(doc, resolved.keys);
    if (!result.ok) return { verifiedKeyIds: [], fingerprint: undefined, keyLocations, failure: result.reason, cause: `the signature does not verify: ${result.reason}` };
    return { verifiedKeyIds: [result.keyId.toLowerCase()], fingerprint: result.fingerprint, keyLocations };
  }

  /**
   * `signedByNode`: the document was just proxy-signed by this node, and this is that signature:
   * verifying it again would check the node's own fresh work, so it counts as verified.
   */
  async check(doc: Envelope, context: CheckContext, signedByNode?: SignatureOutcome): Promise<CheckResult> {
    const { policy } = context;
    const valid = context.mode === 'publish' ? this.validator.validate(doc) : this.validator.validateStored(doc);
    if (!valid.ok) return { ok: false, error: `invalid document: ${valid.error}` };
    const reserved = storeRefusalError(doc);
    if (reserved) return { ok: false, error: reserved };
    // A peer's document is not refused for XML OAI-PMH cannot emit (it is left out of the lists
    // here, as there), but it gets this node's record of the check as a published one does: one
    // parse when it arrives, where without it OAI-PMH emission parsed it again at every harvest.
    const checkedXml = inlineXmlCheck(doc);
    if ('refusal' in checkedXml && context.mode === 'publish') return { ok: false, error: `invalid document: ${checkedXml.refusal}` };
    const xml = 'refusal' in checkedXml ? {} : checkedXml;
    if (!this.filter(doc, context.filter)) return { ok: false, error: FILTERED };
    const tos = (doc.TOS as Record<string, unknown> | undefined)?.submission_TOS;
    if (policy.accepted_tos.length > 0 && (typeof tos !== 'string' || !policy.accepted_tos.includes(tos))) return { ok: false, error: 'rejected by ToS' };
    const identity = identityOf(doc);
    if (context.mode === 'publish' && !policy.accept_anonymous && (identity.submitter_type === 'anonymous' || !identity.submitter)) {
      return { ok: false, error: 'anon submission rejected' };
    }
    if (policy.check_trusted_submitters) {
      const submitter = identity.submitter;
      const trusted = typeof submitter === 'string' && (policy.trusted_submitters.includes(submitter) || submitter === context.accountSubmitter);
      if (!trusted) return { ok: false, error: 'rejected submitter' };
    }
    const signed = doc.digital_signature !== undefined;
    if (!signed && !policy.accept_unsigned) return { ok: false, error: 'no signature' };
    let signature: SignatureOutcome = { verifiedKeyIds: [], fingerprint: undefined, keyLocations: [] };
    if (signed && policy.verify_signatures) {
      const outcome: SignatureOutcome & SignatureFailure = signedByNode ?? await this.verifySignature(doc, context);
      if (outcome.failure) return { ok: false, error: `rejected signature: ${outcome.failure}`, ...(outcome.transient ? { transient: true } : {}) };
      signature = outcome;
    }
    if (Buffer.byteLength(JSON.stringify(doc)) > policy.max_document_size) return { ok: false, error: 'too large' };
    return { ok: true, signature, ...(xml.record ? { xmlCheck: xml.record } : {}) };
  }
}

/**
 * What both ways a document enters this node need (publish, including SWORD, and inbound
 * distribution: spec "Rules common to publish and inbound distribution"): the node's documents,
 * the store, the checks, the node's public URL (its key location) and the clock.
 */
export interface DocumentIntake {
  nodes: NodeRepository;
  store: ResourceRepository;
  checks: DocumentChecks;
  publicUrl: string;
  clock: Clock;
  /** For what a document's answer cannot say (a tombstone left unwritten: replacement-writes.ts). */
  logger: Logger;
  /** How owners are recorded and recognised (domain/ownership.ts): publish records, both compare advance tombstones. */
  owners: OwnerPseudonyms;
}
