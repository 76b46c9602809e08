/**
 * The map functions of one database's design docs, run in the node as the store runs them, to
 * know which keys a document not yet indexed would add (current-reads.ts). Each function is the
 * very source pushed to the store (design-docs/<db>/<ddoc>/views/<view>/map.js), compiled once in
 * a node:vm context of its own, and handed each document as a fresh parse of its JSON, as CouchDB's
 * query server and PouchDB do. The functions are the node's own files, not user input.
 */
import vm from 'node:vm';
import type { DesignDocFile } from './design-docs.js';

type KeysOf = (json: string) => unknown[];

export class ViewMaps {
  private readonly maps = new Map<string, KeysOf>();

  constructor(files: DesignDocFile[], db: DesignDocFile['db']) {
    for (const { db: owner, doc } of files) {
      if (owner !== db) continue;
      for (const [view, { map }] of Object.entries(doc.views ?? {})) {
        this.maps.set(`${doc._id}/${view}`, compileMap(map));
      }
    }
  }

  /**
   * The keys `doc` emits in `ddoc/view` (the name without `_design/`); undefined for an unknown
   * view, or when the function throws (the store then indexes nothing for the document, but the
   * caller is told it cannot know, which is the safe answer).
   */
  keysOf(ddoc: string, view: string, doc: unknown): unknown[] | undefined {
    const keysOf = this.maps.get(`_design/${ddoc}/${view}`);
    if (!keysOf) return undefined;
    try {
      return keysOf(JSON.stringify(doc));
    } catch {
      return undefined;
    }
  }

  /** The keys `doc` emits in every view, by `ddoc/view` (undefined where the function throws). */
  keysByView(doc: unknown): Map<string, unknown[] | undefined> {
    const json = JSON.stringify(doc);
    const keys = new Map<string, unknown[] | undefined>();
    for (const [name, keysOf] of this.maps) {
      try {
        keys.set(name.slice('_design/'.length), keysOf(json));
      } catch {
        keys.set(name.slice('_design/'.length), undefined);
      }
    }
    return keys;
  }

  has(ddoc: string, view: string): boolean {
    return this.maps.has(`_design/${ddoc}/${view}`);
  }
}

function compileMap(source: string): KeysOf {
  const context = vm.createContext({});
  const run = vm.runInContext(`(function () {
    var keys;
    function emit(key) { keys.push(key); }
    var map = (${source});
    return function (json) { keys = []; map(JSON.parse(json)); return JSON.stringify(keys); };
  })()`, context, { timeout: 1000 }) as (json: string) => string;
  // Keys cross back as JSON: plain values of this realm, as the store would hand them out.
  return (json) => JSON.parse(run(json)) as unknown[];
}
