/**
 * Replacement and tombstones, shared by Basic Publish and inbound distribution (spec "States and
 * transitions": a replaced original is superseded by a tombstone "only if the policy permits and
 * none exists yet"). The policy itself is src/domain/replacement.ts.
 */
import type { Logger } from 'pino';
import type { NodePolicy } from '../../config/index.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { buildTombstone, decideReplacement } from '../../domain/replacement.js';
import { isOwnedBy, type Owner } from '../../domain/ownership.js';
import type { CheckContext, DocumentChecks, Envelope, SignatureOutcome } from './document-checks.js';
import { isTombstone } from '../../domain/resource-document.js';

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

/**
 * Why `doc` may not replace what it names (its own doc_ID and `replaces`), or undefined when it
 * may. `account` is the publishing account (none for inbound distribution).
 */
export async function replacementRefusal(docId: string, doc: Envelope, replaces: string[], state: Map<string, StoredDoc>, signature: SignatureOutcome, nodeKeyIds: string[], policy: NodePolicy, account?: Owner): Promise<string | undefined> {
  const existing = state.get(docId);
  if (isTombstone(existing)) return 'rejected replacement: this doc_ID has been replaced and cannot be published again';
  const targets = [...(existing ? [existing] : []), ...replaces.map((id) => state.get(id)).filter((d): d is StoredDoc => d !== undefined && !isTombstone(d))];
  for (const original of targets) {
    const decision = await decideReplacement({ original, replacement: doc, proof: signature, nodeKeyIds, superKeyFingerprints: policy.trusted_super_keys, byOwner: account && isOwnedBy(original, account), sameDocId: original === existing });
    if (!decision.permitted) return `rejected replacement: ${decision.reason}`;
  }
  return undefined;
}

export interface AcceptedWrite {
  doc: StoredDoc;
  signature: SignatureOutcome;
  replaces: string[];
  /** false: the document is stored already with this content (inbound), only its tombstones are due. */
  write?: boolean;
}

export type WriteOutcome = { ok: true } | { ok: false; error: string };

/** Whether an accepted write may still replace `original`, a version of it stored since it was decided (replacementRefusal). */
export type ReplacementRecheck = (entry: AcceptedWrite, original: StoredDoc) => Promise<boolean>;

/** The recheck of a publish (by `account`) or of inbound distribution (none): the same rules as the first decision. */
export function replacementRecheck(nodeKeyIds: string[], policy: NodePolicy, account?: Owner): ReplacementRecheck {
  // '' names no stored document: only the original, under `replaces`, is decided.
  return async (entry, original) =>
    (await replacementRefusal('', entry.doc, [original._id], new Map([[original._id, original]]), entry.signature, nodeKeyIds, policy, account)) === undefined;
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
    // The first tombstone wins: an original already tombstoned keeps its tombstone.
    for (const id of entry.replaces) {
      const original = state.get(id);
      if (!original || isTombstone(original) || tombstoned.has(id)) continue;
      const rev = revs.get(id) ?? original._rev;
      tombstones.push({ entry, doc: { ...buildTombstone({ ...original, _id: id }, entry.doc, entry.signature, now), ...(rev ? { _rev: rev } : {}) } });
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
 * replacement and the updated original both live (an audit: 3 of 8 such races).
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
      if (!original || isTombstone(original) || !(await recheck(entry, original))) continue;
      pending.push({ entry, doc: { ...buildTombstone(original, entry.doc, entry.signature, now), _rev: original._rev } });
    }
  }
  return unwritten;
}
