/**
 * Inbound distribution, the destination node process (spec "Distribution", destination process,
 * and "Rules common to publish and inbound distribution"): for each document that arrived in the
 * incoming database, in the spec's order: reject `do_not_distribute` first; validate (the stored
 * form); reject an unverifiable submitter, an unacceptable ToS or a document too large; apply the
 * active filters (silently); apply the replacement rules; set `node_timestamp` locally; store.
 *
 * Idempotent, so a crash between storing and removing from incoming loses and duplicates nothing:
 * a document this node already holds with the same doc_ID and the same content is not stored again.
 * "Same content" is the LR-PGP canonical hash (src/domain/signature/canonical-hash.ts, integer
 * mode so numbers count), which leaves out node-local fields (node_timestamp, publish_node,
 * timestamps, _rev) and the signature. That is also what makes a document coming back to a node
 * (A→B→A, or a ring) stop there: node_timestamp differs at every node and must not trigger
 * redistribution (spec "Resource data description document").
 */
import { notBootstrapped } from '../../errors/app-error.js';
import type { NodePolicy } from '../../config/index.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { FilterDescription } from '../../domain/filters.js';
import { keyIdsOfArmored } from '../../domain/replacement.js';
import { canonicalHash, NUMBER_MODE_KEEP_INT, STRIPPED_FIELDS } from '../../domain/signature/canonical-hash.js';
import { nodeTimestamp } from '../../domain/timestamps.js';
import { isTombstone, publicForm } from '../../domain/resource-document.js';
import type { CheckContext, DocumentIntake, Envelope } from '../publish/document-checks.js';
import { replacementRefusal, storeWithTombstones, type AcceptedWrite } from '../publish/replacement-writes.js';

export interface InboundResult { stored: number; duplicates: number; rejected: { doc_ID: unknown; error: string }[]; failed: string[] }

export function contentKey(doc: Record<string, unknown>): string {
  try {
    return canonicalHash(doc, NUMBER_MODE_KEEP_INT);
  } catch {
    const rest = Object.fromEntries(Object.entries(doc).filter(([key]) => !STRIPPED_FIELDS.includes(key)));
    return JSON.stringify(rest, Object.keys(rest).sort());
  }
}

export class InboundService {
  constructor(private readonly intake: DocumentIntake) {}

  /** Processes arrived documents; documents it cannot store because of a conflict are returned in `failed` (by incoming _id). */
  async process(arrived: StoredDoc[]): Promise<InboundResult> {
    const result: InboundResult = { stored: 0, duplicates: 0, rejected: [], failed: [] };
    if (arrived.length === 0) return result;
    const [node, filter, keys] = await Promise.all([this.intake.nodes.nodeDescription(), this.intake.nodes.filterDescription(), this.intake.nodes.nodeKeys()]);
    if (!node || !keys) throw notBootstrapped(node ? 'the node key pair' : 'the node description');
    const context: CheckContext = {
      policy: node.node_policy as NodePolicy, filter: filter as FilterDescription | undefined, accountSubmitter: undefined,
      nodePublicKey: keys.publicKey, nodeKeyLocation: `${this.intake.publicUrl}/pubkey`, mode: 'inbound',
    };
    // The document is its public form at the source: the incoming copy's store members are not part
    // of it, and node-private fields of the source (its publishing account) are no authority here.
    const envelopes = arrived.map((doc) => ({ incomingId: doc._id, doc: publicForm(doc) as Envelope }));
    const referenced = envelopes.flatMap(({ doc }) => [doc.doc_ID, ...(Array.isArray(doc.replaces) ? doc.replaces : [])]).filter((id): id is string => typeof id === 'string' && id.length > 0);
    const state = await this.intake.store.getMany(referenced);
    const now = nodeTimestamp(this.intake.clock());
    const nodeKeyIds = await keyIdsOfArmored(keys.publicKey);
    const accepted: (AcceptedWrite & { incomingId: string })[] = [];
    const inBatch = new Set<string>();

    for (const { incomingId, doc } of envelopes) {
      const reject = (error: string): void => { result.rejected.push({ doc_ID: doc.doc_ID ?? incomingId, error }); };
      if (Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute')) { reject('do_not_distribute'); continue; }
      const checked = await this.intake.checks.check(doc, context);
      if (!checked.ok) { reject(checked.error); continue; }
      const docId = typeof doc.doc_ID === 'string' && doc.doc_ID.length > 0 ? doc.doc_ID : incomingId;
      // Two revisions of one document in a batch: the later one is left for the next pass.
      if (inBatch.has(docId)) { result.failed.push(incomingId); continue; }
      const replaces = Array.isArray(doc.replaces) ? doc.replaces.filter((id): id is string => typeof id === 'string' && id !== docId) : [];
      const existing = state.get(docId);
      const duplicate = existing !== undefined && !isTombstone(existing) && contentKey(existing) === contentKey(doc);
      let signature = checked.signature;
      const needsProof = !duplicate && (existing !== undefined || replaces.some((id) => state.has(id)));
      if ((needsProof || (duplicate && replaces.length > 0)) && signature.verifiedKeyIds.length === 0 && doc.digital_signature !== undefined) {
        // Replacing needs a verified signature even when the node does not verify others.
        const outcome = await this.intake.checks.verifySignature(doc, context);
        if (!outcome.failure) signature = outcome;
      }
      const stored: StoredDoc = { ...doc, _id: docId, doc_ID: docId, node_timestamp: now, ...(existing?._rev ? { _rev: existing._rev } : {}) };
      if (duplicate) {
        // Not written again, but the tombstones of what it replaces may still be due (a crash
        // between the two writes, or an original that arrived later): only those are checked
        // ('' names no stored document, so the document itself is not).
        const refused = replaces.length > 0 && (await replacementRefusal('', doc, replaces, state, signature, nodeKeyIds, context.policy)) !== undefined;
        accepted.push({ incomingId, doc: stored, signature, replaces: refused ? [] : replaces, write: false });
        inBatch.add(docId);
        continue;
      }
      const refusal = await replacementRefusal(docId, doc, replaces, state, signature, nodeKeyIds, context.policy);
      if (refusal) { reject(refusal); continue; }
      accepted.push({ incomingId, doc: stored, signature, replaces });
      state.set(docId, stored);
      inBatch.add(docId);
    }
    const outcomes = await storeWithTombstones(this.intake.store, accepted, state, now);
    for (const [position, outcome] of outcomes.entries()) {
      const entry = accepted[position] as AcceptedWrite & { incomingId: string };
      // A conflict (a concurrent writer) is retried; any other refusal by the store is final.
      if (!outcome.ok && outcome.error === 'conflict') result.failed.push(entry.incomingId);
      else if (!outcome.ok) result.rejected.push({ doc_ID: entry.doc.doc_ID, error: `store failed: ${outcome.error}` });
      else if (entry.write === false) result.duplicates += 1;
      else result.stored += 1;
    }
    return result;
  }
}
