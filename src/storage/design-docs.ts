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

/** design-docs/lib/: shared function files, spliced into others, never pushed on their own. */
const SHARED_DIR = 'lib';

/**
 * A line `// @include lib/<name>.js` in a function file stands for that shared file
 * (design-docs/lib/), indented as the line is. CouchDB's map functions can `require()` only from
 * the design doc's own `views.lib`, and the embedded store's map functions cannot at all
 * (`require()`, "JavaScript" in CouchDB's query server docs), so a shared helper is spliced in here, before push: the
 * store is handed the same self-contained function either way.
 */
const INCLUDE = /^([ \t]*)\/\/ @include (lib\/[a-z0-9-]+\.js)[ \t]*$/gm;

function spliceIncludes(root: string, file: string, source: string): string {
  return source.replace(INCLUDE, (_line, indent: string, relative: string) => {
    const sharedFile = path.join(root, relative);
    if (!fs.existsSync(sharedFile)) throw new Error(`${file}: @include ${relative}: no such file in ${root}`);
    return fs.readFileSync(sharedFile, 'utf8').trimEnd().split('\n').map((line) => (line === '' ? line : indent + line)).join('\n');
  });
}

/**
 * Reads one function file (`relative` to the design-docs `root`), shared files spliced in.
 * PouchDB wraps it as `(<source>)(doc)`, so it must be exactly one function expression.
 */
export function readFunctionSource(root: string, relative: string): string {
  const file = path.join(root, relative);
  const source = spliceIncludes(root, relative, fs.readFileSync(file, 'utf8').trim().replace(/;$/, ''));
  if (!/^function\s*\(/.test(source) || !source.endsWith('}')) {
    throw new Error(`${file}: a design-doc function file must hold one ES5 function expression (comments inside its body)`);
  }
  return source;
}

function readFunctions(root: string, dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const file of fs.readdirSync(path.join(root, dir)).sort()) {
    if (file.endsWith('.js')) result[file.slice(0, -3)] = readFunctionSource(root, path.join(dir, file));
  }
  return result;
}

/** `dir`: the design doc's folder, relative to the design-docs `root` (`<db>/<ddoc>`). */
function readDesignDoc(root: string, dir: string, name: string): DesignDoc {
  const doc: DesignDoc = { _id: `_design/${name}`, language: 'javascript' };
  const exists = (relative: string): boolean => fs.existsSync(path.join(root, relative));
  const viewsDir = path.join(dir, 'views');
  if (exists(viewsDir)) {
    doc.views = {};
    for (const view of fs.readdirSync(path.join(root, viewsDir)).sort()) {
      const viewDir = path.join(viewsDir, view);
      const entry: { map: string; reduce?: string } = { map: readFunctionSource(root, path.join(viewDir, 'map.js')) };
      const reduceFile = path.join(viewDir, 'reduce.js');
      if (exists(reduceFile)) {
        const reduce = fs.readFileSync(path.join(root, reduceFile), 'utf8').trim();
        // Built-in reduces (_count, _sum, _stats) are kept as their names.
        entry.reduce = reduce.startsWith('_') ? reduce : readFunctionSource(root, reduceFile);
      }
      doc.views[view] = entry;
    }
  }
  const filtersDir = path.join(dir, 'filters');
  if (exists(filtersDir)) doc.filters = readFunctions(root, filtersDir);
  const validateFile = path.join(dir, 'validate_doc_update.js');
  if (exists(validateFile)) doc.validate_doc_update = readFunctionSource(root, validateFile);
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
    if (db === SHARED_DIR) continue;
    if (!DATABASE_KEYS.includes(db as DatabaseKey)) throw new Error(`design-docs/${db}: unknown database (expected one of ${DATABASE_KEYS.join(', ')})`);
    for (const name of fs.readdirSync(path.join(root, db)).sort()) {
      result.push({ db: db as DatabaseKey, doc: readDesignDoc(root, path.join(db, name), name) });
    }
  }
  return result;
}
