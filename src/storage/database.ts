/** One database of the store, its documents typed as the node stores them. */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';

/** A document as stored: any JSON object with its id and, once written, its revision. */
export type StoredDoc = Record<string, unknown> & { _id: string; _rev?: string };

/**
 * One database, its documents typed as stored documents: what `get`, `fetch`, `list` and `view`
 * answer is then a StoredDoc without a cast at each call (nano types a DocumentScope<unknown>'s
 * documents as bare metadata).
 */
export type Database = DocumentScope<StoredDoc>;

export function database(couch: Couch, name: string): Database {
  return couch.use<StoredDoc>(name);
}
