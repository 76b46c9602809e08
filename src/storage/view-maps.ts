/**
 * The map functions of one database's design docs, run in the node as the store runs them, to
 * know which rows a document not yet indexed would add (current-reads.ts). Each function is the
 * very source pushed to the store (design-docs/<db>/<ddoc>/views/<view>/map.js), compiled once in
 * a node:vm context of its own, and handed each document as a fresh parse of its JSON, as CouchDB's
 * query server and PouchDB do. The functions are the node's own files, not user input.
 */
import vm from 'node:vm';
import type { DesignDocFile } from './design-docs.js';

/** One emitted row: `emit(key, value)`. */
export interface EmittedRow { key: unknown; value: unknown }

type RowsOf = (json: string) => EmittedRow[];

export class ViewMaps {
  private readonly maps = new Map<string, RowsOf>();

  constructor(files: DesignDocFile[], db: DesignDocFile['db']) {
    for (const { db: owner, doc } of files) {
      if (owner !== db) continue;
      for (const [view, { map }] of Object.entries(doc.views ?? {})) {
        this.maps.set(`${doc._id.slice('_design/'.length)}/${view}`, compileMap(map));
      }
    }
  }

  /**
   * The rows `doc` emits in `ddoc/view`; undefined for an unknown view, or when the function
   * throws (the store then indexes nothing for the document, but the caller is told it cannot
   * know, which is the safe answer).
   */
  rowsOf(ddoc: string, view: string, doc: unknown): EmittedRow[] | undefined {
    return this.rowsByView(doc, `${ddoc}/${view}`).get(`${ddoc}/${view}`);
  }

  /**
   * The rows `doc` emits in every view (or in `only`), by `ddoc/view` (undefined where the function
   * throws). The views repeat the same long strings (the node_timestamp, the doc_ID and its hex
   * form) in many keys: each is kept once, which more than halves what a cached document's rows
   * hold (backlog-rows.ts keeps thousands of them).
   */
  rowsByView(doc: unknown, only?: string): Map<string, EmittedRow[] | undefined> {
    const json = JSON.stringify(doc);
    const rows = new Map<string, EmittedRow[] | undefined>();
    const strings = new Map<string, string>();
    for (const [name, rowsOf] of this.maps) {
      if (only !== undefined && name !== only) continue;
      try {
        rows.set(name, rowsOf(json).map((row) => ({ key: interned(row.key, strings), value: interned(row.value, strings) })));
      } catch {
        rows.set(name, undefined);
      }
    }
    return rows;
  }

  has(ddoc: string, view: string): boolean {
    return this.maps.has(`${ddoc}/${view}`);
  }
}

/** `value` with each string replaced by the first equal one seen (arrays walked; other values as they are). */
function interned(value: unknown, strings: Map<string, string>): unknown {
  if (typeof value === 'string') {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  }
  return Array.isArray(value) ? value.map((item) => interned(item, strings)) : value;
}

function compileMap(source: string): RowsOf {
  const context = vm.createContext({});
  const run = vm.runInContext(`(function () {
    var rows;
    function emit(key, value) { rows.push({ key: key, value: value === undefined ? null : value }); }
    var map = (${source});
    return function (json) { rows = []; map(JSON.parse(json)); return JSON.stringify(rows); };
  })()`, context, { timeout: 1000 }) as (json: string) => string;
  // Rows cross back as JSON: plain values of this realm, as the store would hand them out.
  return (json) => JSON.parse(run(json)) as EmittedRow[];
}
