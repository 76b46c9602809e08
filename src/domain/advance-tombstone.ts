/**
 * An advance tombstone: what a node keeps of a replacement that names, in `replaces`, a doc_ID it
 * does not hold yet (spec "States and transitions": a replaced original is "superseded by a
 * tombstone document"). Distribution does not keep order, so a replacement can reach a node before
 * its original; without this record the original arriving later was stored live beside its
 * replacement, and the node's content depended on the order of arrival (a network audit's
 * finding 8).
 *
 * It is stored under the original's doc_ID with a doc_type no view, filter or service takes for a
 * resource (resource-document.ts: state `other`), so it is served, counted and distributed by
 * nothing. It holds what deciding the replacement needs once the original arrives
 * (replacement.ts, decideReplacement): the replacement's doc_ID, its identity.submitter (the rule
 * for proxy-signed originals), its verified signature (key ids, fingerprint, key locations),
 * whether it is a deletion, and the account that published it here, if any. The original, when it
 * comes, is decided against it as against a replacement arriving after it: permitted, it is stored
 * as its tombstone; not permitted (another key), it is stored live over the advance tombstone,
 * which was no real replacement. Only a replacement whose signature is verified leaves one:
 * `replaces` needs a key (spec "Authentication", 5).
 */
import { ownerOf, type OwnerPseudonyms } from './ownership.js';
import type { SignatureProof } from './replacement.js';

export const ADVANCE_TOMBSTONE_TYPE = 'pending_tombstone';

interface RecordedReplacement {
  doc_ID: unknown;
  submitter: unknown;
  deletion: boolean;
  /**
   * The account that published the replacement at this node, as recorded on it (ownership.ts: its
   * pseudonym, or its plain name in a record of an earlier version); absent when it arrived by
   * distribution.
   */
  publisher_account?: string;
  public_key_fingerprint: string | null;
  public_key_locations: string[];
  verified_key_ids: string[];
}

export type AdvanceTombstone = Record<string, unknown> & { _id: string; _rev?: string; doc_type: typeof ADVANCE_TOMBSTONE_TYPE; replaced_by: RecordedReplacement; recorded: string };

export function isAdvanceTombstone(doc: Record<string, unknown> | undefined): doc is AdvanceTombstone {
  return doc !== undefined && doc.doc_type === ADVANCE_TOMBSTONE_TYPE;
}

/** The advance tombstone `replacement` (its signature verified: `proof`) leaves for `originalId`, a doc_ID not held. */
export function buildAdvanceTombstone(originalId: string, replacement: Record<string, unknown>, proof: SignatureProof, now: string): AdvanceTombstone {
  const owner = ownerOf(replacement);
  return {
    _id: originalId,
    doc_type: ADVANCE_TOMBSTONE_TYPE,
    replaced_by: {
      doc_ID: replacement.doc_ID,
      submitter: (replacement.identity as Record<string, unknown> | undefined)?.submitter ?? null,
      deletion: replacement.payload_placement === 'none',
      ...(owner ? { publisher_account: owner } : {}),
      public_key_fingerprint: proof.fingerprint ?? null,
      public_key_locations: proof.keyLocations,
      verified_key_ids: proof.verifiedKeyIds,
    },
    recorded: now,
  };
}

/**
 * The replacement as decideReplacement and buildTombstone read it (its doc_ID, submitter and
 * payload placement), its signature's proof, and whether the account that published it owns
 * `original` (undefined when it arrived by distribution: no account published it here).
 */
export function recordedReplacement(advance: AdvanceTombstone, original: Record<string, unknown>, owners: Pick<OwnerPseudonyms, 'same'>): { replacement: Record<string, unknown>; proof: SignatureProof; byOwner: boolean | undefined } {
  const recorded = advance.replaced_by;
  const replacement: Record<string, unknown> = {
    doc_ID: recorded.doc_ID,
    identity: { submitter: recorded.submitter ?? undefined },
    ...(recorded.deletion ? { payload_placement: 'none' } : {}),
  };
  const proof: SignatureProof = {
    verifiedKeyIds: recorded.verified_key_ids,
    fingerprint: recorded.public_key_fingerprint ?? undefined,
    keyLocations: recorded.public_key_locations,
  };
  // As publish asks it (isOwnedBy); decideReplacement reads it only for an original with an owner,
  // whose record then decides. Two stored records are compared: either may be a plain name written
  // before owners were pseudonyms (an advance tombstone left before an upgrade, its original
  // published after), so `same`, not ===.
  const owner = ownerOf(original);
  const byOwner = recorded.publisher_account === undefined ? undefined : owner !== undefined && owners.same(owner, recorded.publisher_account);
  return { replacement, proof, byOwner };
}
