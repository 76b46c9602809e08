/** Batch reads of resource data documents: one round trip (_all_docs or a GET); writes are settled-writes.ts. */
import { inStore, isMissingDocument, mapCouchError } from './couch.js';
import type { StoredDoc, Database } from './documents.js';
import { isWellFormedText } from '../domain/well-formed-text.js';

export async function getMany(db: Database, ids: string[]): Promise<Map<string, StoredDoc>> {
  const found = new Map<string, StoredDoc>();
  if (ids.length === 0) return found;
  // An id that is not well-formed text names no stored document, and CouchDB would refuse the whole read.
  const keys = [...new Set(ids)].filter(isWellFormedText);
  if (keys.length === 0) return found;
  const only = keys.length === 1 ? keys[0] : undefined;
  // One id (obtain by doc_ID, GetRecord, a one-document publish): a document GET reaches one
  // shard copy, where `_all_docs` asks every shard range of a clustered database; on the CouchDB
  // 3.5 fixture, 16 connections got 1,852 GETs/s against 1,338 one-key `_all_docs` reads. An id
  // with a leading "_" would name a design or `_local` document to a GET: those keep `_all_docs`,
  // which never answers `_local` documents (reserved doc_IDs, issue 14).
  // A long id stays in the body of `_all_docs`: in a GET's URL it can pass the store's header
  // limit (431), as a 5,000-character request_ID did at /delete.
  if (only !== undefined && !only.startsWith('_') && only.length <= MAX_ID_IN_URL) {
    try {
      found.set(only, await db.get(only));
    } catch (error) {
      // A 404 for the database itself stays an error, as `_all_docs` made it.
      if (!isMissingDocument(error)) throw mapCouchError(error, 'read documents');
    }
    return found;
  }
  const result = await inStore('read documents', () => db.fetch({ keys }));
  for (const row of result.rows) {
    if ('doc' in row && row.doc) found.set(row.id, row.doc);
  }
  return found;
}

/** Longest id read by a document GET; a longer one is read through `_all_docs` (getMany). */
const MAX_ID_IN_URL = 1024;
