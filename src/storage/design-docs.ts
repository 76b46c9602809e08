/**
 * Design documents kept as files (design-docs/<db>/<ddoc>/...), assembled into CouchDB design
 * docs and pushed at start-up only when their content changed: a SHA-256 of the content is kept
 * in the design doc (`content_hash`), so an unchanged design doc is not re-written and its views
 * are not rebuilt (CouchDB rebuilds every view of a design doc whose view code changes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { DatabaseKey } from './databases.js';

export interface DesignDoc {
  _id: string;
  _rev?: string;
  language: 'javascript';
  content_hash?: string;
  views?: Record<string, { map: string; reduce?: string }>;
  filters?: Record<string, string>;
  validate_doc_update?: string;
}

export interface DesignDocFile { db: DatabaseKey; doc: DesignDoc }

/**
 * Design docs earlier versions of the node pushed and this one no longer has: deleted at start-up
 * (with a `_view_cleanup`, so their index files go too), but only when they carry a content_hash,
 * the mark of a design doc the node pushed itself, so an operator's own design doc of the same
 * name is left alone. CouchDB indexes each design doc in its own pass over the database, and
 * CouchDB 3's background indexer (ken, "Background Indexing" in its configuration docs) runs that
 * pass after writes whether or not anything queries the design doc: one left behind would keep
 * costing an index pass per write, and disk.
 */
export const RETIRED_DESIGN_DOCS: readonly { db: DatabaseKey; id: string }[] = [
  // Its one view had the live documents by node_timestamp, which /status reads from slice/by_date
  // instead: one index pass fewer per write.
  { db: 'resource_data', id: '_design/node-status' },
  // Its two views had the rows of harvest's two views with value 0 (the live documents), which
  // Basic Obtain now reads instead (src/storage/obtain-repository.ts): one index pass fewer.
  { db: 'resource_data', id: '_design/obtain' },
];

const DATABASE_KEYS: readonly DatabaseKey[] = ['resource_data', 'incoming', 'incoming_parked', 'node', 'community', 'network', 'accounts'];

/** Reads one function file; PouchDB wraps it as `(<source>)(doc)`, so it must be exactly one function expression. */
export function readFunctionSource(file: string): string {
  const source = fs.readFileSync(file, 'utf8').trim().replace(/;$/, '');
  if (!/^function\s*\(/.test(source) || !source.endsWith('}')) {
    throw new Error(`${file}: a design-doc function file must hold one ES5 function expression (comments inside its body)`);
  }
  return source;
}

function readFunctions(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const file of fs.readdirSync(dir).sort()) {
    if (file.endsWith('.js')) result[file.slice(0, -3)] = readFunctionSource(path.join(dir, file));
  }
  return result;
}

function readDesignDoc(dir: string, name: string): DesignDoc {
  const doc: DesignDoc = { _id: `_design/${name}`, language: 'javascript' };
  const viewsDir = path.join(dir, 'views');
  if (fs.existsSync(viewsDir)) {
    doc.views = {};
    for (const view of fs.readdirSync(viewsDir).sort()) {
      const viewDir = path.join(viewsDir, view);
      const entry: { map: string; reduce?: string } = { map: readFunctionSource(path.join(viewDir, 'map.js')) };
      const reduceFile = path.join(viewDir, 'reduce.js');
      if (fs.existsSync(reduceFile)) {
        const reduce = fs.readFileSync(reduceFile, 'utf8').trim();
        // Built-in reduces (_count, _sum, _stats) are kept as their names.
        entry.reduce = reduce.startsWith('_') ? reduce : readFunctionSource(reduceFile);
      }
      doc.views[view] = entry;
    }
  }
  const filtersDir = path.join(dir, 'filters');
  if (fs.existsSync(filtersDir)) doc.filters = readFunctions(filtersDir);
  const validateFile = path.join(dir, 'validate_doc_update.js');
  if (fs.existsSync(validateFile)) doc.validate_doc_update = readFunctionSource(validateFile);
  doc.content_hash = contentHash(doc);
  return doc;
}

function contentHash(doc: DesignDoc): string {
  const { _id, views, filters, validate_doc_update: validate } = doc;
  return createHash('sha256').update(JSON.stringify({ _id, views, filters, validate })).digest('hex');
}

export function loadDesignDocs(root: string): DesignDocFile[] {
  const result: DesignDocFile[] = [];
  for (const db of fs.readdirSync(root).sort()) {
    if (!DATABASE_KEYS.includes(db as DatabaseKey)) throw new Error(`design-docs/${db}: unknown database (expected one of ${DATABASE_KEYS.join(', ')})`);
    for (const name of fs.readdirSync(path.join(root, db)).sort()) {
      result.push({ db: db as DatabaseKey, doc: readDesignDoc(path.join(root, db, name), name) });
    }
  }
  return result;
}
