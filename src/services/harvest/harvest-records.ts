/**
 * Record states and headers shared by both harvests (spec "States and transitions": a deleted
 * document is reported with status `deleted` when the deleted-data policy is not `no`).
 * Deleted means: a tombstone (replaced), marked by Basic Delete (`node_deleted`), or a deletion
 * document (`payload_placement: none`).
 */
import type { StoredDoc } from '../../storage/documents.js';
import { publicFields } from '../../domain/ownership.js';
import { datestamp, type Granularity } from './harvest-dates.js';

export interface RecordHeader { identifier: string; datestamp: string; status: 'active' | 'deleted' }

export function isDeletedDoc(doc: StoredDoc): boolean {
  return doc.doc_type === 'tombstone' || Boolean(doc.node_deleted) || doc.payload_placement === 'none';
}

export function isHarvestable(doc: StoredDoc): boolean {
  return (doc.doc_type === 'resource_data' || doc.doc_type === 'tombstone') && typeof doc.node_timestamp === 'string';
}

export function headerOf(id: string, nodeTimestamp: string, deleted: boolean, granularity: Granularity): RecordHeader {
  return { identifier: id, datestamp: datestamp(nodeTimestamp, granularity), status: deleted ? 'deleted' : 'active' };
}

export function headerOfDoc(doc: StoredDoc, granularity: Granularity): RecordHeader {
  return headerOf(typeof doc.doc_ID === 'string' ? doc.doc_ID : doc._id, String(doc.node_timestamp), isDeletedDoc(doc), granularity);
}

/** The resource data description document without CouchDB's own fields (`_id`, `_rev`, `_attachments`...) and node-private ones. */
export function publicDocument(doc: StoredDoc): Record<string, unknown> {
  return publicFields(doc);
}
