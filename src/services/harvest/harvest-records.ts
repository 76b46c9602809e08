/**
 * Record headers shared by both harvests (spec "States and transitions": a deleted document is
 * reported with status `deleted` when the deleted-data policy is not `no`). Which documents are
 * records and which are deleted is src/domain/resource-document.ts (isHarvestable, isDeleted).
 */
import type { StoredDoc } from '../../storage/documents.js';
import { isDeleted } from '../../domain/resource-document.js';
import { datestamp, type Granularity } from './harvest-dates.js';

export interface RecordHeader { identifier: string; datestamp: string; status: 'active' | 'deleted' }

export function headerOf(id: string, nodeTimestamp: string, deleted: boolean, granularity: Granularity): RecordHeader {
  return { identifier: id, datestamp: datestamp(nodeTimestamp, granularity), status: deleted ? 'deleted' : 'active' };
}

export function headerOfDoc(doc: StoredDoc, granularity: Granularity): RecordHeader {
  return headerOf(typeof doc.doc_ID === 'string' ? doc.doc_ID : doc._id, String(doc.node_timestamp), isDeleted(doc), granularity);
}
