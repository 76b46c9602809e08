/**
 * What Basic Delete leaves of a document it deletes (`delete_action` `delete` or `purge`) on a
 * node whose `deleted_data_policy` is `persistent`: OAI-PMH 2.0 §2.5.1 has such a repository
 * "persistently keep track of the full history of deletions and consistently return the status
 * of a record as deleted over time", and the spec's Basic Delete: "Deletion MUST be consistent
 * with the resource data persistence policy". Removing the document from the store would lose
 * the record from both harvests, so its content goes and a stub stays, in the state `marked`
 * (resource-document.ts: `doc_type` `resource_data` with `node_deleted`), which every view, the
 * distribution filter and every service already treat as deleted: harvest reports it with status
 * `deleted`, nothing serves, counts or distributes it.
 */
import { OWNER_FIELD } from './ownership.js';
import { isRecord } from './is-record.js';

/** The fields of a document that its stub keeps, each for the reason given. */
const KEPT_FIELDS: readonly string[] = [
  // The same stored document (`_id`, always kept), written as its next revision: the doc_ID
  // stays taken. The node never serves an earlier revision, and CouchDB drops its body when it
  // compacts the database (spec "States and transitions", purge: "may run later").
  '_rev',
  // Resource data (with node_deleted below, the state `marked`), of the version it had.
  'doc_type', 'doc_version',
  // The record's identifier in both harvests.
  'doc_ID',
  // getrecord/GetRecord look a record up by its locator first (harvest's by_resource_locator
  // view), so the record is still found that way, and answered as deleted.
  'resource_locator',
  // The formats it is listed in: OAI-PMH reports a deletion in the formats the record matched
  // (the oai-pmh/by_schema view), as a tombstone keeps them (replacement.ts, buildTombstone).
  'payload_schema',
  // What a same-doc_ID publish keeps of the document it updates (publish.service.ts, prepare).
  'create_timestamp', 'publish_node', 'publishing_node',
  // A peer's copy no newer than this is stale (inbound.service.ts, isStaleCopy): the live copy
  // coming back does not bring the record back.
  'update_timestamp',
  // Who may replace or update the record afterwards, as for a marked document (replacement.ts,
  // ownership.ts): the owner; the signing key (the block holds a signature of the document's
  // hash and the key's locations, none of its content), without which a deletion document by
  // the same key, arriving from a peer, would be refused whole and not travel on.
  OWNER_FIELD, 'digital_signature',
];

/** The stub of `doc` deleted at `now` (a node_timestamp): see the module comment. */
export function deletionStub(doc: Record<string, unknown> & { _id: string }, now: string): Record<string, unknown> & { _id: string } {
  const stub: Record<string, unknown> & { _id: string } = { _id: doc._id };
  for (const key of KEPT_FIELDS) if (Object.hasOwn(doc, key)) stub[key] = doc[key];
  // Of the identity, only the submitter: an original this node proxy-signed is replaced only for
  // the same submitter, and a document from a peer is owned by the account of that submitter.
  const submitter = isRecord(doc.identity) ? doc.identity.submitter : undefined;
  if (submitter !== undefined) stub.identity = { submitter };
  // The mark, and a new datestamp so incremental harvesters see the deletion.
  stub.node_deleted = now;
  stub.node_timestamp = now;
  return stub;
}
