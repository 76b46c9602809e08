/**
 * Replacement policy (spec "States and transitions" and "Authentication", 5): who may replace a
 * stored document, with `replaces` or by publishing the same doc_ID again.
 *
 * - A signed original may be replaced only by a document whose signature is verified and was
 *   made by the same key, or by a trusted super key (node policy trusted_super_keys).
 * - An original proxy-signed by this node needs a replacement proxy-signed by this node for the
 *   same identity.submitter.
 * - An unsigned original has no key to prove the replacer: its owner (the account that published
 *   it, src/domain/ownership.ts) replaces it in total by publishing its doc_ID again (the state
 *   table: "stored, publish with the same doc_ID"); `replaces` needs a key ("Authentication", 5),
 *   so there only a super key may.
 * - An original published at this node by another account is never replaced through proxy signing.
 */
import * as openpgp from 'openpgp';
import { ownerOf } from './ownership.js';
import { isDistributable, publicForm, SUPERSEDED_REPLACEMENT } from './resource-document.js';

export interface SignatureProof {
  /** Issuer key ids (lowercase hex) of the replacement's verified signature; empty when unverified. */
  verifiedKeyIds: string[];
  fingerprint: string | undefined;
  keyLocations: string[];
  /** Why a signature the replacement carries is not verified (its key could not be fetched, it does not verify). */
  unverified?: { reason: string };
}

export type ReplacementDecision = { permitted: true } | { permitted: false; reason: string };

/** Issuer key ids of a document's clear-signed signature, read without verifying it (lowercase hex). */
export async function signingKeyIds(doc: Record<string, unknown> | undefined): Promise<string[]> {
  const block = doc?.digital_signature as { signature?: unknown } | undefined;
  if (!block || typeof block.signature !== 'string') return [];
  try {
    const message = await openpgp.readCleartextMessage({ cleartextMessage: block.signature });
    return message.getSigningKeyIDs().map((id) => id.toHex().toLowerCase());
  } catch {
    return [];
  }
}

/** Key ids (lowercase hex) of an armored public key and its subkeys. */
export async function keyIdsOfArmored(armored: string): Promise<string[]> {
  const key = await openpgp.readKey({ armoredKey: armored });
  return key.getKeyIDs().map((id) => id.toHex().toLowerCase());
}

/** keyIdsOfArmored of the last key asked for, parsed once: the node's key pair is created once and kept. */
export class ArmoredKeyIds {
  private last: { armored: string; ids: Promise<string[]> } | undefined;

  of(armored: string): Promise<string[]> {
    if (this.last?.armored !== armored) this.last = { armored, ids: keyIdsOfArmored(armored) };
    const { ids } = this.last;
    // A key that failed to parse is parsed again next time, not remembered as a failure.
    ids.catch(() => { if (this.last?.ids === ids) this.last = undefined; });
    return ids;
  }
}

function submitterOf(doc: Record<string, unknown>): unknown {
  return (doc.identity as Record<string, unknown> | undefined)?.submitter;
}

export async function decideReplacement(input: {
  original: Record<string, unknown>;
  replacement: Record<string, unknown>;
  proof: SignatureProof;
  nodeKeyIds: string[];
  superKeyFingerprints: string[];
  /** Whether the publishing account owns the original; undefined when no account publishes (inbound distribution, anonymous publish). */
  byOwner?: boolean | undefined;
  /** The replacement has the original's doc_ID (not `replaces`). */
  sameDocId?: boolean;
}): Promise<ReplacementDecision> {
  const { original, replacement, proof, nodeKeyIds } = input;
  const superKeys = input.superKeyFingerprints.map((f) => f.replace(/\s+/g, '').toLowerCase());
  if (proof.fingerprint && superKeys.includes(proof.fingerprint.toLowerCase())) return { permitted: true };
  const originalKeys = await signingKeyIds(original);
  if (originalKeys.length === 0) {
    if (input.sameDocId !== true) return { permitted: false, reason: 'the original is unsigned: only a trusted super key may replace it' };
    return input.byOwner === true ? { permitted: true } : { permitted: false, reason: 'the original is unsigned: only its owner or a trusted super key may replace it' };
  }
  if (proof.verifiedKeyIds.length === 0) return { permitted: false, reason: proof.unverified?.reason ?? 'the replacement has no verified signature' };
  if (!proof.verifiedKeyIds.some((id) => originalKeys.includes(id))) return { permitted: false, reason: 'signed with a different key than the original' };
  const proxySigned = originalKeys.some((id) => nodeKeyIds.includes(id));
  if (proxySigned && submitterOf(original) !== submitterOf(replacement)) {
    return { permitted: false, reason: 'the original was proxy-signed for another submitter' };
  }
  if (proxySigned && input.byOwner === false && ownerOf(original) !== undefined) {
    return { permitted: false, reason: 'the original was published by another account of this node' };
  }
  return { permitted: true };
}

export function buildTombstone(original: Record<string, unknown> & { _id: string }, replacement: Record<string, unknown>, proof: SignatureProof, now: string): Record<string, unknown> & { _id: string } {
  // The layout of the original node's tombstones (shared/samples/documents/tombstone-example.json).
  const tombstone: Record<string, unknown> & { _id: string } = {
    _id: original._id,
    doc_ID: original._id,
    doc_type: 'tombstone',
    doc_version: original.doc_version,
    replaced_by: {
      doc_ID: replacement.doc_ID,
      public_key_fingerprint: proof.fingerprint?.toUpperCase() ?? null,
      public_key_locations: proof.keyLocations,
    },
    create_timestamp: now,
    node_timestamp: now,
    do_not_distribute: true,
  };
  if (original.resource_locator !== undefined) tombstone.resource_locator = original.resource_locator;
  // Kept so OAI-PMH can report the record as deleted under its metadata format.
  if (original.payload_schema !== undefined) tombstone.payload_schema = original.payload_schema;
  if (original.replaces !== undefined) tombstone.replaces = original.replaces;
  // A replacement superseded in turn keeps its signed form, which distribution carries
  // (relayedReplacement): what it replaced is replaced at destinations that never received it.
  if (Array.isArray(original.replaces) && original.replaces.length > 0 && isDistributable(original)) tombstone[SUPERSEDED_REPLACEMENT] = publicForm(original);
  // A deletion is a replacement without payload: harvest reports the original as deleted.
  if (replacement.payload_placement === 'none') tombstone.deleted = true;
  return tombstone;
}
