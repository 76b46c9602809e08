/** Runs a design-doc function file in a node:vm sandbox, as CouchDB's JavaScript engine would. */
import vm from 'node:vm';
import path from 'node:path';
import { readFunctionSource } from '../../src/storage/design-docs.js';
import { ROOT } from './process.js';

export function mapFunction(relative: string): (doc: unknown) => [unknown, unknown][] {
  const source = readFunctionSource(path.join(ROOT, 'design-docs'), relative);
  return (doc) => {
    const emitted: [unknown, unknown][] = [];
    const context = vm.createContext({ emit: (key: unknown, value: unknown) => emitted.push([key, value]) });
    // A JSON copy, as the server hands the function a fresh parsed document.
    vm.runInContext(`(${source})(${JSON.stringify(doc)})`, context, { timeout: 1000 });
    return JSON.parse(JSON.stringify(emitted)) as [unknown, unknown][];
  };
}

export function filterFunction(relative: string): (doc: unknown, query: Record<string, unknown>) => unknown {
  const source = readFunctionSource(path.join(ROOT, 'design-docs'), relative);
  const filter = vm.runInNewContext(`(${source})`, {}, { timeout: 1000 }) as (doc: unknown, req: unknown) => unknown;
  return (doc, query) => filter(JSON.parse(JSON.stringify(doc)), { query: JSON.parse(JSON.stringify(query)) });
}

/** A validate_doc_update function: undefined when it accepts, the thrown object when it refuses. */
export function validateFunction(relative: string): (newDoc: unknown, oldDoc: unknown, userCtx: unknown) => unknown {
  const source = readFunctionSource(path.join(ROOT, 'design-docs'), relative);
  const validate = vm.runInNewContext(`(${source})`, {}, { timeout: 1000 }) as (newDoc: unknown, oldDoc: unknown, userCtx: unknown) => void;
  return (newDoc, oldDoc, userCtx) => {
    try {
      validate(JSON.parse(JSON.stringify(newDoc)), oldDoc === null ? null : JSON.parse(JSON.stringify(oldDoc)), JSON.parse(JSON.stringify(userCtx)));
      return undefined;
    } catch (thrown) {
      return JSON.parse(JSON.stringify(thrown));
    }
  };
}
