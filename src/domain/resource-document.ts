/**
 * What a stored resource document is, and the form in which it leaves the node. Every service
 * (obtain, slice, harvest, OAI-PMH, publish, delete, SWORD), inbound distribution and /status
 * decide with these functions; the design-doc functions, which cannot import TypeScript, encode
 * the same rules in ES5 and test/design-docs/resource-rules-drift.test.ts keeps them equal.
 *
 * States of a document in the resource_data database (spec "States and transitions"):
 * - active: `doc_type` `resource_data`, not marked by Basic Delete, not a deletion document (the
 *   harvest header status `active`). It is live once stored at this node: it has the
 *   `node_timestamp` the publish process and inbound distribution set (spec "Resource data
 *   description document"), which every view keys it by.
 * - marked: Basic Delete with `delete_action` `mark` set the `node_deleted` flag ("flag set;
 *   access services MUST NOT return it"). The flag holds the time of the deletion; a falsy value
 *   is no flag.
 * - deletion: a deletion document, `payload_placement` `none` (spec "Resource data description
 *   document": "`none` is used for deletion documents"), published with `replaces` to delete what
 *   it names. It is not served as a document, and harvest reports it as deleted; it still
 *   distributes, so that every node tombstones the documents it replaces.
 * - tombstone: `doc_type` `tombstone`, what a replaced original becomes ("original superseded by
 *   a tombstone document"), stored under the original's doc_ID; `deleted: true` when the
 *   replacement was a deletion document (src/domain/replacement.ts, buildTombstone). "Replaced"
 *   is this state: a replacement the policy did not permit leaves the original live.
 * - other: node documents, design documents, advance tombstones (a replacement's record for an
 *   original not held yet, src/domain/advance-tombstone.ts), anything else in the database.
 */
import { NODE_PRIVATE_FIELDS } from './node-private-fields.js';

export type ResourceState = 'active' | 'marked' | 'deletion' | 'tombstone' | 'other';

export function resourceState(doc: Record<string, unknown>): ResourceState {
  if (doc.doc_type === 'tombstone') return 'tombstone';
  if (doc.doc_type !== 'resource_data') return 'other';
  if (doc.node_deleted) return 'marked';
  if (doc.payload_placement === 'none') return 'deletion';
  return 'active';
}

/** Served by obtain, slice and harvest as a document, and counted by /status and distribution step 1. */
export function isLive<T extends Record<string, unknown>>(doc: T | undefined): doc is T {
  return doc !== undefined && resourceState(doc) === 'active' && typeof doc.node_timestamp === 'string';
}

export function isTombstone(doc: Record<string, unknown> | undefined): boolean {
  return doc !== undefined && resourceState(doc) === 'tombstone';
}

/**
 * A record of both harvests (spec "Basic Harvest (JSON)", "OAI-PMH Harvest (XML)"): resource data
 * in any state and tombstones, with the node_timestamp that is their datestamp.
 */
export function isHarvestable(doc: Record<string, unknown>): boolean {
  return resourceState(doc) !== 'other' && typeof doc.node_timestamp === 'string';
}

/** Reported with status `deleted` by harvest (spec "States and transitions", harvest row): marked, a deletion document or a tombstone. */
export function isDeleted(doc: Record<string, unknown>): boolean {
  const state = resourceState(doc);
  return state === 'marked' || state === 'deletion' || state === 'tombstone';
}


/**
 * What distribution may send before any destination filter (spec "Rules common to publish and
 * inbound distribution", 1: a document with a `do_not_distribute` key never travels): resource
 * data that is active or a deletion document, and a tombstone that keeps the replacement it
 * superseded (isRelay), which travels as that replacement. The rule is applied by the replication filter
 * (design-docs/resource_data/distribute/filters/live_for_destination.js) and its Mango selector
 * (src/domain/filters.ts), which CouchDB runs; this is its statement on plain data, the reference
 * the tests hold both of them to (test/design-docs), not called by the node.
 */
export function isDistributable(doc: Record<string, unknown>): boolean {
  if (isRelay(doc)) return true;
  const state = resourceState(doc);
  return (state === 'active' || state === 'deletion') && !Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute');
}

/**
 * The field of a tombstone that keeps the document it supersedes, in its public form, when that
 * document was itself a replacement (buildTombstone, src/domain/replacement.ts).
 */
export const SUPERSEDED_REPLACEMENT = 'superseded_replacement';

/**
 * The replacement a tombstone keeps (SUPERSEDED_REPLACEMENT), when it is one of the same doc_ID:
 * distribution sends it as that document, so a destination that never received it still
 * replaces what it replaced. Without it, a chain of two replacements published between two
 * distributions left the first original live at every destination (an audit's finding, session
 * 34): the middle one was a tombstone by the next run, and tombstones did not travel.
 */
export function relayedReplacement(doc: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isRelay(doc)) return undefined;
  const relayed = doc[SUPERSEDED_REPLACEMENT] as Record<string, unknown>;
  return relayed.doc_ID === doc.doc_ID ? relayed : undefined;
}

/**
 * A tombstone that keeps a superseded replacement: distribution sends it (the replication filter
 * and selector pass it, as CouchDB's Mango can say no more of it), and the destination takes what
 * it keeps for a document arriving (relayedReplacement), which its checks then decide.
 */
export function isRelay(doc: Record<string, unknown>): boolean {
  const kept = doc[SUPERSEDED_REPLACEMENT];
  return doc.doc_type === 'tombstone' && typeof kept === 'object' && kept !== null && !Array.isArray(kept);
}

/**
 * Without the store's members: CouchDB reserves every top-level field that begins with `_`
 * (`_id`, `_rev`, `_attachments`, `_conflicts`, ...; CouchDB "Documents": special fields).
 */
export function withoutStoreFields<T extends Record<string, unknown>>(doc: T): Omit<T, `_${string}`> {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !key.startsWith('_'))) as Omit<T, `_${string}`>;
}

/** Without the fields a node keeps for itself (src/domain/node-private-fields.ts): what a node takes from a publisher or a peer. */
export function withoutNodePrivateFields<T extends Record<string, unknown>>(doc: T): T {
  // No copy when there is nothing to drop (the common case of a publish): callers never change the result.
  if (!NODE_PRIVATE_FIELDS.some((key) => Object.hasOwn(doc, key))) return doc;
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !NODE_PRIVATE_FIELDS.includes(key))) as T;
}

/**
 * The public form of a stored resource document, as every access service serves it and as a node
 * takes a document from a peer: without the store's members and without node-private fields.
 */
export function publicForm(doc: Record<string, unknown>): Record<string, unknown> {
  // One copy, not one per rule: every record of every harvest page goes through here, and a
  // published document carries a node-private field, so the second rule would copy it again.
  const served: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!key.startsWith('_') && !NODE_PRIVATE_FIELDS.includes(key)) served[key] = value;
  return served;
}
