/**
 * Replacement and tombstones, shared by Basic Publish and inbound distribution (spec "States and
 * transitions": a replaced original is superseded by a tombstone "only if the policy permits and
 * none exists yet"). The policy itself is src/domain/replacement.ts.
 */
import type { NodePolicy } from '../../config/index.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { buildTombstone, decideReplacement } from '../../domain/replacement.js';
import { isOwnedBy, type Owner } from '../../domain/ownership.js';
import type { Envelope, SignatureOutcome } from './document-checks.js';
import { isTombstone } from '../../domain/resource-document.js';

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

/**
 * One _bulk_docs for the accepted documents, then one for the tombstones of the originals they
 * replace. Outcomes are aligned with `accepted`.
 */
export async function storeWithTombstones(store: ResourceRepository, accepted: AcceptedWrite[], state: Map<string, StoredDoc>, now: string): Promise<WriteOutcome[]> {
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
  const tombstones: StoredDoc[] = [];
  const tombstoned = new Set<string>();
  for (const entry of accepted) {
    if (byEntry.get(entry)?.ok === false) continue;
    // The first tombstone wins: an original already tombstoned keeps its tombstone.
    for (const id of entry.replaces) {
      const original = state.get(id);
      if (!original || isTombstone(original) || tombstoned.has(id)) continue;
      const rev = revs.get(id) ?? original._rev;
      tombstones.push({ ...buildTombstone({ ...original, _id: id }, entry.doc, entry.signature, now), ...(rev ? { _rev: rev } : {}) });
      tombstoned.add(id);
    }
  }
  // A tombstone that loses a race to a concurrent writer is simply not saved (first one wins).
  await store.bulkWrite(tombstones);
  return accepted.map((entry) => byEntry.get(entry) ?? { ok: true });
}
