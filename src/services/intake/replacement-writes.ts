/**
 * Replacement and tombstones, shared by Basic Publish and inbound distribution (spec "States and
 * transitions": a replaced original is superseded by a tombstone "only if the policy permits and
 * none exists yet"). The policy itself is src/domain/replacement.ts. A replacement naming a
 * doc_ID not held leaves an advance tombstone, against which the original is decided when it comes
 * (src/domain/advance-tombstone.ts), so the outcome does not depend on the order of arrival.
 */
import type { Logger } from 'pino';
import type { NodePolicy } from '../../config/index.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { buildTombstone, decideReplacement } from '../../domain/replacement.js';
import type { OwnerPseudonyms } from '../../domain/ownership.js';
import type { CheckContext, DocumentChecks, Envelope, SignatureOutcome } from './document-checks.js';
import { isTombstone } from '../../domain/resource-document.js';
import { buildAdvanceTombstone, isAdvanceTombstone, recordedReplacement } from '../../domain/advance-tombstone.js';

export const REPLACED_DOC_ID = 'rejected replacement: this doc_ID has been replaced and cannot be published again';

/** A document a replacement replaces: held, and neither a tombstone (the first one wins) nor an advance tombstone (no document). */
const isOriginal = (doc: StoredDoc | undefined): doc is StoredDoc => doc !== undefined && !isTombstone(doc) && !isAdvanceTombstone(doc);

/**
 * The signature a replacement is decided with. Replacing needs a verified signature even when the
 * node does not verify others (policy verify_signatures), so one not verified yet is verified
 * now; when it cannot be, `unverified` says so.
 */
export async function replacementProof(checks: DocumentChecks, doc: Envelope, context: CheckContext, signature: SignatureOutcome): Promise<SignatureOutcome> {
  if (signature.verifiedKeyIds.length > 0 || doc.digital_signature === undefined) return signature;
  const outcome = await checks.verifySignature(doc, context);
  if (!outcome.failure) return { verifiedKeyIds: outcome.verifiedKeyIds, fingerprint: outcome.fingerprint, keyLocations: outcome.keyLocations };
  return { ...signature, unverified: { reason: outcome.cause ?? outcome.failure, transient: outcome.transient === true } };
}

/** Whether the publishing account owns a stored document (OwnerPseudonyms.isOwnedBy for that account). */
export type OwnedBy = (doc: StoredDoc) => boolean;

/**
 * Why `doc` may not replace what it names (its own doc_ID and `replaces`), or undefined when it
 * may. `ownedBy` asks about the publishing account (none for inbound distribution).
 */
export async function replacementRefusal(docId: string, doc: Envelope, replaces: string[], state: Map<string, StoredDoc>, signature: SignatureOutcome, nodeKeyIds: string[], policy: NodePolicy, ownedBy?: OwnedBy): Promise<string | undefined> {
  const existing = state.get(docId);
  if (isTombstone(existing)) return REPLACED_DOC_ID;
  // An advance tombstone under docId is decided by supersedingTombstone; one under a name in
  // `replaces` was left by an earlier replacement, and the first one wins.
  const targets = [...(isOriginal(existing) ? [existing] : []), ...replaces.map((id) => state.get(id)).filter(isOriginal)];
  for (const original of targets) {
    const decision = await decideReplacement({ original, replacement: doc, proof: signature, nodeKeyIds, superKeyFingerprints: policy.trusted_super_keys, byOwner: ownedBy?.(original), sameDocId: original === existing });
    if (!decision.permitted) return `rejected replacement: ${decision.reason}`;
  }
  return undefined;
}

/**
 * The tombstone `original` is stored as when it meets an advance tombstone (`existing`) whose
 * replacement may replace it (src/domain/advance-tombstone.ts); undefined when `original` is
 * stored as it is: no advance tombstone is there, or its replacement may not replace it (another
 * key), so it was no real replacement.
 */
export async function supersedingTombstone(existing: StoredDoc | undefined, original: StoredDoc, nodeKeyIds: string[], policy: NodePolicy, now: string, owners: OwnerPseudonyms): Promise<StoredDoc | undefined> {
  if (!isAdvanceTombstone(existing)) return undefined;
  const { replacement, proof, byOwner } = recordedReplacement(existing, original, owners);
  const decision = await decideReplacement({ original, replacement, proof, nodeKeyIds, superKeyFingerprints: policy.trusted_super_keys, byOwner });
  if (!decision.permitted) return undefined;
  return { ...buildTombstone(original, replacement, proof, now), ...(existing._rev ? { _rev: existing._rev } : {}) };
}

/** The doc_IDs of `replaces` not held when a write is decided (AcceptedWrite.notHeld). */
export function notHeldOf(replaces: string[], state: Map<string, StoredDoc>): string[] {
  return replaces.filter((id) => !state.has(id));
}

export interface AcceptedWrite {
  doc: StoredDoc;
  signature: SignatureOutcome;
  replaces: string[];
  /** Those of `replaces` this node did not hold when the write was decided: each gets an advance tombstone, when the signature is verified. */
  notHeld?: string[];
  /** Set when `doc` is the tombstone of this original (supersedingTombstone), which still replaces what it names in `replaces`. */
  supersededOriginal?: StoredDoc;
  /** false: the document is stored already with this content (inbound), only its tombstones are due. */
  write?: boolean;
}

export type WriteOutcome = { ok: true } | { ok: false; error: string };

/**
 * Each write's outcome beside its entry (outcomes are in the entries' order): `settle` takes every
 * one but a conflict; the entries whose write met another version of their doc_ID are returned,
 * to be decided again (intake-pipeline.ts).
 */
export function settleWrites<E>(entries: E[], outcomes: WriteOutcome[], settle: (entry: E, outcome: WriteOutcome) => void): E[] {
  const conflicts: E[] = [];
  for (const [position, outcome] of outcomes.entries()) {
    const entry = entries[position] as E;
    if (!outcome.ok && outcome.error === 'conflict') conflicts.push(entry);
    else settle(entry, outcome);
  }
  return conflicts;
}

/** The document that replaces what `entry` names in `replaces`. */
const replacerOf = (entry: AcceptedWrite): StoredDoc => entry.supersededOriginal ?? entry.doc;

/** Whether an accepted write may still replace `original`, a version of it stored since it was decided (replacementRefusal). */
export type ReplacementRecheck = (entry: AcceptedWrite, original: StoredDoc) => Promise<boolean>;

/** The recheck of a publish (by the account `ownedBy` asks about) or of inbound distribution (none): the same rules as the first decision. */
export function replacementRecheck(nodeKeyIds: string[], policy: NodePolicy, ownedBy?: OwnedBy): ReplacementRecheck {
  // '' names no stored document: only the original, under `replaces`, is decided.
  return async (entry, original) =>
    (await replacementRefusal('', replacerOf(entry), [original._id], new Map([[original._id, original]]), entry.signature, nodeKeyIds, policy, ownedBy)) === undefined;
}

/** Rounds of re-reading an original whose tombstone lost a race (each lost round means another writer won). */
const TOMBSTONE_ROUNDS = 4;

/**
 * One _bulk_docs for the accepted documents, then one for the tombstones of the originals they
 * replace. Outcomes are aligned with `accepted`.
 */
export async function storeWithTombstones(store: ResourceRepository, accepted: AcceptedWrite[], state: Map<string, StoredDoc>, now: string, recheck: ReplacementRecheck, logger: Logger): Promise<WriteOutcome[]> {
  const toWrite = accepted.filter((entry) => entry.write !== false);
  const written = await store.bulkWrite(toWrite.map((entry) => entry.doc));
  const byEntry = new Map<AcceptedWrite, WriteOutcome>();
  const revs = new Map<string, string>();
  for (const [position, outcome] of written.entries()) {
    const entry = toWrite[position] as AcceptedWrite;
    if (!outcome.ok) { byEntry.set(entry, { ok: false, error: outcome.error }); continue; }
    byEntry.set(entry, { ok: true });
    revs.set(outcome.id, outcome.rev);
  }
  const tombstones: Tombstone[] = [];
  const tombstoned = new Set<string>();
  for (const entry of accepted) {
    if (byEntry.get(entry)?.ok === false) continue;
    const replacer = replacerOf(entry);
    for (const id of entry.replaces) {
      if (tombstoned.has(id)) continue;
      // Not held when decided: an advance tombstone, written without a revision, so an original
      // stored since (later in this batch, or by another writer) makes it a conflict, decided in
      // writeTombstones against that original. A replacement without a verified signature replaces
      // nothing not held ("Authentication", 5: a key is needed).
      if (entry.notHeld?.includes(id)) {
        if (entry.signature.verifiedKeyIds.length === 0) continue;
        tombstones.push({ entry, doc: buildAdvanceTombstone(id, replacer, entry.signature, now) });
        tombstoned.add(id);
        continue;
      }
      // The first tombstone wins: an original already tombstoned, or named by an earlier replacement
      // before it arrived, keeps that.
      const original = state.get(id);
      if (!isOriginal(original)) continue;
      const rev = revs.get(id) ?? original._rev;
      tombstones.push({ entry, doc: { ...buildTombstone({ ...original, _id: id }, replacer, entry.signature, now), ...(rev ? { _rev: rev } : {}) } });
      tombstoned.add(id);
    }
  }
  const unwritten = await writeTombstones(store, tombstones, now, recheck);
  // The replacements are stored and answered OK; an original left live beside one is for the operator to see.
  if (unwritten.length > 0) logger.warn({ originals: unwritten.slice(0, 20), count: unwritten.length }, 'tombstones not written: these replaced originals stay live beside their replacements');
  return accepted.map((entry) => byEntry.get(entry) ?? { ok: true });
}

interface Tombstone { entry: AcceptedWrite; doc: StoredDoc }

/**
 * A tombstone that meets a conflict lost a race: the original was changed since it was read (a
 * same-doc_ID update through another request or node process). The replacement is stored
 * already, so the original as it is now is read and tombstoned in its turn, as it would be had
 * the update come first, when the replacement may still replace it (recheck); an original
 * tombstoned meanwhile keeps that tombstone (first one wins). Dropping the lost tombstone left the
 * replacement and the updated original both live (an audit: 3 of 8 such races). An advance
 * tombstone meets a conflict when the original was stored since the replacement was decided: it
 * is tombstoned in the same way.
 */
async function writeTombstones(store: ResourceRepository, tombstones: Tombstone[], now: string, recheck: ReplacementRecheck): Promise<string[]> {
  const unwritten: string[] = [];
  let pending = tombstones;
  for (let round = 1; pending.length > 0; round += 1) {
    if (round > TOMBSTONE_ROUNDS) return [...unwritten, ...pending.map((tombstone) => tombstone.doc._id)];
    const outcomes = await store.bulkWrite(pending.map((tombstone) => tombstone.doc));
    const lost: Tombstone[] = [];
    for (const [position, tombstone] of pending.entries()) {
      const outcome = outcomes[position];
      if (outcome?.ok) continue;
      if (outcome?.error === 'conflict') lost.push(tombstone);
      else unwritten.push(tombstone.doc._id);
    }
    if (lost.length === 0) return unwritten;
    const current = await store.getMany(lost.map((tombstone) => tombstone.doc._id));
    pending = [];
    for (const { entry, doc } of lost) {
      const original = current.get(doc._id);
      if (!isOriginal(original) || !(await recheck(entry, original))) continue;
      pending.push({ entry, doc: { ...buildTombstone(original, replacerOf(entry), entry.signature, now), _rev: original._rev } });
    }
  }
  return unwritten;
}
