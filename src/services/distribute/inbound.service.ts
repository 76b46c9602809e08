/**
 * Inbound distribution, the destination node process (spec "Distribution", destination process,
 * and "Rules common to publish and inbound distribution"): for each document that arrived in the
 * incoming database, in the spec's order: reject `do_not_distribute` first; validate (the stored
 * form); reject an unverifiable submitter, an unacceptable ToS or a document too large; apply the
 * active filters (silently); apply the replacement rules; set `node_timestamp` locally; store.
 *
 * Idempotent, so a crash between storing and removing from incoming loses and duplicates nothing:
 * a document this node already holds with the same doc_ID and the same content is not stored again,
 * nor is a copy no newer than the one held (`isStaleCopy`).
 * "Same content" is the LR-PGP canonical hash (src/domain/signature/canonical-hash.ts, integer
 * mode so numbers count), which leaves out node-local fields (node_timestamp, publish_node,
 * timestamps, _rev) and the signature. That is also what makes a document coming back to a node
 * (A→B→A, or a ring) stop there: node_timestamp differs at every node and must not trigger
 * redistribution (spec "Resource data description document").
 *
 * One write per document and no read before it for the usual batch of documents new here (issue
 * 15): only the documents named in `replaces` are read first; a doc_ID already stored shows up as
 * a conflict of that write (no `_rev`), and only those are read and decided again (a duplicate, a
 * same-doc_ID update, or a refusal), as Basic Publish does.
 */
import type { NodePolicy } from '../../config/index.js';
import type { StoredDoc } from '../../storage/documents.js';
import { ArmoredKeyIds } from '../../domain/replacement.js';
import { canonicalHash, NUMBER_MODE_KEEP_INT, STRIPPED_FIELDS } from '../../domain/signature/canonical-hash.js';
import { compareTimestamps, timestampAfter } from '../../domain/timestamps.js';
import { isTombstone, publicForm, relayedReplacement } from '../../domain/resource-document.js';
import { isAdvanceTombstone } from '../../domain/advance-tombstone.js';
import { XML_CHECK_FIELD } from '../../domain/node-private-fields.js';
import type { XmlCheckRecord } from '../../protocol/oai-pmh/metadata-fragment.js';
import { FILTERED, type CheckContext, type DocumentIntake, type Envelope, type SignatureOutcome } from '../intake/document-checks.js';
import { readableIds, replacedBy, replacedInBatch } from '../../domain/replaces.js';
import { notHeldOf, replacementProof, replacementRecheck, replacementRefusal, settleWrites, supersedingTombstone, type WriteOutcome } from '../intake/replacement-writes.js';
import { BatchContextReader } from '../intake/batch-context.js';
import { IntakePipeline, type IntakeEntry, type IntakePass } from '../intake/intake-pipeline.js';

/**
 * A document not stored: `id` is its id as it arrived (the replicator's), `error` why.
 * `transient`: the cause may pass (the store refused the write, a signer's key location did not
 * answer), so the refusal is no verdict on the document: it is parked and tried again
 * (parked-documents.ts).
 */
export interface Rejection { id: string; doc_ID: unknown; error: string; transient?: boolean }

/**
 * `stale`: copies no newer than the document held (update_timestamp), not stored (see `isStaleCopy`).
 * `superseded`: originals that arrived after their replacement, stored as their tombstone
 * (src/domain/advance-tombstone.ts), and copies of a document replaced here; no refusal: the
 * document was taken in, as replaced.
 * `parked`: refusals that may pass, kept to be tried again (inbound-receiver.ts; 0 here).
 * `filtered`: left out by this node's active filters, not stored, and answered as taken (spec
 * "Rules common to publish and inbound distribution", 2).
 */
export interface InboundResult { stored: number; duplicates: number; stale: number; superseded: number; filtered: number; rejected: Rejection[]; failed: string[]; parked: number }

/**
 * A copy no newer than the document this node holds under its doc_ID, by `update_timestamp`
 * (which travels with a document; only node_timestamp is local): an older version coming back
 * round a ring after its publisher updated it, or the live copy of a document marked deleted
 * here (Basic Delete keeps its update_timestamp). Storing it would replace the newer document
 * in total and send it on at the next distribution: the update, or the deletion, would be lost
 * on every node. Without two comparable timestamps nothing is judged stale.
 */
function isStaleCopy(held: StoredDoc, incoming: Record<string, unknown>): boolean {
  const order = compareTimestamps(incoming.update_timestamp, held.update_timestamp);
  return order !== undefined && order <= 0;
}

/**
 * What `decide` makes of a copy against the document held under its doc_ID, where that needs no
 * signature: a copy of a document replaced here is superseded; the same content is a duplicate
 * (only when everything it replaces is a tombstone here already, so nothing is left to do); a
 * copy no newer is stale. Undefined: the copy needs its checks.
 */
function heldCopyVerdict(existing: StoredDoc | undefined, doc: Record<string, unknown>, replaced: (StoredDoc | undefined)[]): 'superseded' | 'duplicates' | 'stale' | undefined {
  if (existing === undefined || isAdvanceTombstone(existing)) return undefined;
  if (isTombstone(existing)) return 'superseded';
  if (contentKey(existing) === contentKey(doc)) return replaced.every((original) => isTombstone(original)) ? 'duplicates' : undefined;
  return isStaleCopy(existing, doc) ? 'stale' : undefined;
}

/**
 * The stored-document schemas (the LR schemas', which this node's validation follows) require
 * `publishing_node`, the original nodes' name of the field; the spec names it `publish_node`
 * ("Resources and their fields"). A peer that stamps only the spec's name is no less complete: its
 * value is taken for both, as this node's own publish writes both.
 */
function withPublishingNode(doc: Envelope): Envelope {
  return doc.publishing_node === undefined && typeof doc.publish_node === 'string' ? { ...doc, publishing_node: doc.publish_node } : doc;
}

/** An arrived document's doc_ID: its own, or the id it arrived under when it names none (it is refused then, under that id). */
function arrivedDocId(doc: Envelope, incomingId: string): string {
  return typeof doc.doc_ID === 'string' && doc.doc_ID.length > 0 ? doc.doc_ID : incomingId;
}

function contentKey(doc: Record<string, unknown>): string {
  try {
    return canonicalHash(doc, NUMBER_MODE_KEEP_INT);
  } catch {
    const rest = Object.fromEntries(Object.entries(doc).filter(([key]) => !STRIPPED_FIELDS.includes(key)));
    return JSON.stringify(rest, Object.keys(rest).sort());
  }
}

/** A document that passed the checks, waiting for the decision that needs the stored state. */
interface Checked { incomingId: string; doc: Envelope; signature: SignatureOutcome; xmlCheck?: XmlCheckRecord }
type Entry = IntakeEntry & { incomingId: string; checked: Checked };

/** What one batch is decided against (intake-pipeline.ts), and the node's rules. */
type Pass = IntakePass & { policy: NodePolicy; context: CheckContext };

export class InboundService {
  private readonly nodeKeyIds = new ArmoredKeyIds();
  private readonly pipeline: IntakePipeline;
  private readonly contexts: BatchContextReader;

  constructor(private readonly intake: DocumentIntake) {
    this.pipeline = new IntakePipeline(intake);
    this.contexts = new BatchContextReader(intake);
  }

  /** Processes arrived documents; documents it cannot store because of a conflict are returned in `failed` (by incoming _id). */
  async process(arrived: StoredDoc[]): Promise<InboundResult> {
    const result: InboundResult = { stored: 0, duplicates: 0, stale: 0, superseded: 0, filtered: 0, rejected: [], failed: [], parked: 0 };
    if (arrived.length === 0) return result;
    // The document is its public form at the source: the incoming copy's store members are not part
    // of it, and node-private fields of the source (its publishing account) are no authority here.
    // A tombstone that keeps the replacement it superseded arrives as that document (relayedReplacement).
    const envelopes = arrived.map((doc) => ({ incomingId: doc._id, doc: withPublishingNode(publicForm(relayedReplacement(doc) ?? doc) as Envelope) }));
    const { context, keys } = this.contexts.contextOf(await this.contexts.read(), 'inbound', envelopes.map(({ doc }) => doc));
    const { policy } = context;
    const replaced = replacedInBatch(envelopes.map(({ doc }) => doc));
    // A large batch is checked and written in slices, each written while the next is checked: a
    // replicator sends its next batch only when this one is answered (intake-pipeline.ts).
    await this.pipeline.run(
      { inputs: envelopes, replaced, nodeKeyIds: this.nodeKeyIds.of(keys.publicKey), recheck: (nodeKeyIds) => replacementRecheck(nodeKeyIds, policy) },
      {
        check: (slice) => this.checkAll(slice, context, result),
        decide: (checked, pass) => this.decide(checked, { ...pass, policy, context }, result),
        // A fresh `inBatch`: the entry itself was decided in the first round.
        decideAgain: async (entry, pass) => (await this.decide([entry.checked], { ...pass, policy, context, inBatch: new Set() }, result, false))[0],
        record: (entries, outcomes) => this.record(entries, outcomes, result),
        // Still meeting other writers: the replicator sends them again (/incoming answers 503).
        giveUp: (entries) => { result.failed.push(...entries.map((entry) => entry.incomingId)); },
      },
    );
    await this.settleHeldCopies(result, new Map(envelopes.map(({ incomingId, doc }) => [incomingId, doc])));
    return result;
  }

  /**
   * A refusal that may pass (its signer's key location did not answer) is no refusal of a copy
   * this node already holds, or holds newer: `decide` would have counted it a duplicate, stale or
   * superseded without its key, but the signature is checked first. Parked instead, every document
   * coming back round a ring while its signer's key server was down sat in incoming_parked for
   * days and was then given up, "counted refused", although the node held it (an audit's finding).
   * Read only for such refusals, which are rare; a duplicate that replaces documents not yet
   * tombstoned here stays refused: its tombstones need the proof its key gives.
   */
  private async settleHeldCopies(result: InboundResult, arrived: Map<string, Envelope>): Promise<void> {
    const pending = result.rejected.flatMap((rejection) => {
      const doc = rejection.transient === true ? arrived.get(rejection.id) : undefined;
      return doc ? [{ rejection, doc, docId: arrivedDocId(doc, rejection.id) }] : [];
    });
    if (pending.length === 0) return;
    const replacesOf = (doc: Envelope, docId: string): string[] => readableIds(replacedBy(doc, docId));
    let held: Map<string, StoredDoc>;
    try {
      held = await this.intake.store.getMany([...new Set(pending.flatMap(({ doc, docId }) => [docId, ...replacesOf(doc, docId)]))]);
    } catch {
      return; // the refusals stand: parked, and tried again
    }
    const settled = new Set<Rejection>();
    for (const { rejection, doc, docId } of pending) {
      const verdict = heldCopyVerdict(held.get(docId), doc, replacesOf(doc, docId).map((id) => held.get(id)));
      if (verdict === undefined) continue;
      result[verdict] += 1;
      settled.add(rejection);
    }
    result.rejected = result.rejected.filter((rejection) => !settled.has(rejection));
  }

  /** The checks of each document (validation, signature, filter, size), in the spec's order. */
  private async checkAll(envelopes: { incomingId: string; doc: Envelope }[], context: CheckContext, result: InboundResult): Promise<Checked[]> {
    const checked: Checked[] = [];
    // The documents of a slice are checked at once, as publish checks them: their signers' keys
    // are then fetched four at a time (key-resolver.ts), where one after the other a batch naming
    // ten key locations that never answer held the replicator 50 s, past its own timeout.
    const outcomes = await Promise.all(envelopes.map(({ doc }) => (Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute') ? undefined : this.intake.checks.check(doc, context))));
    for (const [position, { incomingId, doc }] of envelopes.entries()) {
      const reject = (error: string, transient?: boolean): void => { result.rejected.push({ id: incomingId, doc_ID: doc.doc_ID ?? incomingId, error, ...(transient ? { transient } : {}) }); };
      const outcome = outcomes[position];
      if (outcome === undefined) { reject('do_not_distribute'); continue; }
      // "Distribution gives no indicator that a document was filtered" (spec, rules common to
      // publish and inbound distribution, 2): answered as taken, so the source's replicator does
      // not count it refused (it was refused, and showed in the source's docs_refused).
      if (!outcome.ok && outcome.error === FILTERED) { result.filtered += 1; continue; }
      if (!outcome.ok) { reject(outcome.error, outcome.transient); continue; }
      checked.push({ incomingId, doc, signature: outcome.signature, ...(outcome.xmlCheck ? { xmlCheck: outcome.xmlCheck } : {}) });
    }
    return checked;
  }

  /**
   * The replacement rules against what is known of the stored documents. With `optimistic`, a
   * doc_ID not read is written without `_rev`, which the store refuses if the doc_ID exists.
   */
  private async decide(checked: Checked[], pass: Pass, result: InboundResult, optimistic = true): Promise<Entry[]> {
    const { state, context, inBatch } = pass;
    const accepted: Entry[] = [];
    for (const entry of checked) {
      const { incomingId, doc } = entry;
      const docId = arrivedDocId(doc, incomingId);
      // Two revisions of one document in a batch: the later one is left for the next pass.
      if (inBatch.has(docId)) { result.failed.push(incomingId); continue; }
      const replaces = replacedBy(doc, docId);
      const existing = state.get(docId);
      // A copy of a document replaced here (a peer that has not seen the replacement yet, round
      // a ring): taken in as replaced, not refused. Its own `replaces` were applied when it was
      // stored here or superseded. Counted a refusal, every such copy showed in the source's
      // docs_refused.
      if (isTombstone(existing)) { result.superseded += 1; continue; }
      // A version of this document (an advance tombstone is none: replacement-writes.ts decides the document against it).
      const held = existing !== undefined && !isTombstone(existing) && !isAdvanceTombstone(existing);
      const duplicate = held && contentKey(existing) === contentKey(doc);
      if (!duplicate && held && isStaleCopy(existing, doc)) {
        result.stale += 1;
        continue;
      }
      // Any `replaces` needs the proof: what is not held gets an advance tombstone only with it.
      const needsProof = !duplicate && (existing !== undefined || replaces.length > 0);
      const signature = needsProof || (duplicate && replaces.length > 0) ? await replacementProof(this.intake.checks, doc, context, entry.signature) : entry.signature;
      // This node's own record of its XML check, as publish keeps one (the source's, a node-private
      // field, never arrives: publicForm): without it OAI-PMH parsed every record that came by
      // distribution again at each harvest (saxes, about 0.1 ms a 4 KB record).
      const xmlRecord = entry.xmlCheck ? { [XML_CHECK_FIELD]: entry.xmlCheck } : {};
      // After the version held, even when a racing writer stored that one in between (timestampAfter).
      const stored: StoredDoc = { ...doc, _id: docId, doc_ID: docId, node_timestamp: timestampAfter(pass.now, existing?.node_timestamp), ...xmlRecord, ...(existing?._rev ? { _rev: existing._rev } : {}) };
      const base = { incomingId, checked: entry, doc: stored, signature, optimistic: optimistic && existing === undefined };
      if (duplicate) {
        // Not written again, but the tombstones of what it replaces may still be due (a crash
        // between the two writes, or an original that arrived later): only those are checked
        // ('' names no stored document, so the document itself is not).
        const refused = replaces.length > 0 && (await replacementRefusal('', doc, replaces, state, signature, pass.nodeKeyIds, pass.policy)) !== undefined;
        accepted.push({ ...base, replaces: refused ? [] : replaces, notHeld: refused ? [] : notHeldOf(replaces, state), write: false });
        inBatch.add(docId);
        continue;
      }
      const refusal = await replacementRefusal(docId, doc, replaces, state, signature, pass.nodeKeyIds, pass.policy);
      // Decided without the signer's key, which a later batch may fetch: not a verdict on the document.
      if (refusal) { result.rejected.push({ id: incomingId, doc_ID: doc.doc_ID ?? incomingId, error: refusal, ...(signature.unverified?.transient ? { transient: true } : {}) }); continue; }
      // An original whose replacement came first is stored as its tombstone (it still replaces what it names).
      const tombstone = await supersedingTombstone(existing, stored, pass.nodeKeyIds, pass.policy, pass.now, this.intake.owners);
      accepted.push({ ...base, replaces, notHeld: notHeldOf(replaces, state), ...(tombstone ? { doc: tombstone, supersededOriginal: stored } : {}) });
      state.set(docId, tombstone ?? stored);
      inBatch.add(docId);
    }
    return accepted;
  }

  /** Counts the written entries; returns those that met another version of their doc_ID, to be decided again. */
  private record(entries: Entry[], outcomes: WriteOutcome[], result: InboundResult): Entry[] {
    return settleWrites(entries, outcomes, (entry, outcome) => {
      // Any other refusal by the store is final for this batch (the store's, not the node's rules).
      if (!outcome.ok) result.rejected.push({ id: entry.incomingId, doc_ID: entry.doc.doc_ID, error: `store failed: ${outcome.error}`, transient: true });
      else if (entry.write === false) result.duplicates += 1;
      else if (entry.supersededOriginal) result.superseded += 1;
      else result.stored += 1;
    });
  }
}
