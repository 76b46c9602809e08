/**
 * Design docs as files (src/storage/design-docs.ts): shared helpers in design-docs/lib/ are
 * spliced into the functions that name them, so the store gets self-contained functions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { expect } from 'chai';
import fc from 'fast-check';
import { Linter } from 'eslint';
import { loadDesignDocs, readFunctionSource, type DesignDocFile } from '../../../src/storage/design-docs.js';
import { codeUnitKey } from '../../../src/storage/view-keys.js';
import { ROOT } from '../../support/process.js';

const DESIGN_DOCS = path.join(ROOT, 'design-docs');

function tempRoot(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-ddocs-'));
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  return root;
}

/** Every function a design doc pushes (built-in reduces such as `_count` left out), named `<db>/<ddoc> <function>`. */
function pushedFunctions(files: DesignDocFile[]): [string, string][] {
  return files.flatMap(({ db, doc }): [string, string][] => {
    const own: [string, string | undefined][] = [
      ...Object.entries(doc.views ?? {}).flatMap(([view, { map, reduce }]): [string, string | undefined][] => [[view, map], [`${view} reduce`, reduce]]),
      ...Object.entries(doc.filters ?? {}), ['validate_doc_update', doc.validate_doc_update],
    ];
    return own.flatMap(([name, source]): [string, string][] => (source === undefined || source.startsWith('_') ? [] : [[`${db}/${doc._id} ${name}`, source]]));
  });
}

describe('design docs as files: shared helpers', () => {
  it('the shared key() (design-docs/lib/code-unit-key.js) encodes as codeUnitKey does', () => {
    const source = fs.readFileSync(path.join(DESIGN_DOCS, 'lib', 'code-unit-key.js'), 'utf8');
    const key = vm.runInNewContext(`(function () { ${source}; return key; })()`, {}, { timeout: 1000 }) as (text: string) => string;
    fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 16 }), (text) => {
      expect(key(text)).to.equal(codeUnitKey(text));
    }), { numRuns: 3000 });
  });

  it('every pushed function is self-contained: no @include left, and it compiles on its own', () => {
    const files = loadDesignDocs(DESIGN_DOCS);
    let spliced = 0;
    for (const [name, source] of pushedFunctions(files)) {
      expect(source, name).not.to.contain('@include');
      expect(() => new vm.Script(`(${source})`), name).not.to.throw();
      if (source.includes('function key(text)')) spliced += 1;
    }
    // harvest's two views, oai-pmh's by_schema, slice's three.
    expect(spliced).to.equal(6);
    expect(files.some((file) => (file.db as string) === 'lib'), 'lib/ is not a database').to.equal(false);
  });

  it('every pushed function is plain ES5 naming only what the query server provides', () => {
    // CouchDB's query server and the embedded store run these as written ("Design Documents" in
    // CouchDB's docs); an undefined name (a helper not spliced in) fails only per document, at index time.
    const linter = new Linter();
    const globals = { emit: 'readonly', log: 'readonly', sum: 'readonly', isArray: 'readonly', toJSON: 'readonly' } as const;
    const problems: string[] = [];
    for (const [name, source] of pushedFunctions(loadDesignDocs(DESIGN_DOCS))) {
      const messages = linter.verify(`(${source});`, {
        languageOptions: { ecmaVersion: 5, sourceType: 'script', globals },
        rules: { 'no-undef': 'error', 'no-unused-vars': ['error', { caughtErrors: 'none' }], 'no-redeclare': 'error' },
      });
      problems.push(...messages.map((message) => `${name} ${message.line}: ${message.message}`));
    }
    expect(problems).to.deep.equal([]);
    const unspliced = fs.readFileSync(path.join(DESIGN_DOCS, 'resource_data/slice/views/by_tag/map.js'), 'utf8');
    expect(linter.verify(`(${unspliced});`, { languageOptions: { ecmaVersion: 5, sourceType: 'script', globals }, rules: { 'no-undef': 'error' } }).map((message) => message.message)).to.include("'key' is not defined.");
  });

  it('splices a shared file at the line that names it, indented as that line', () => {
    const root = tempRoot({
      'lib/twice.js': '// Doubles.\nfunction twice(n) {\n  return 2 * n;\n}\n',
      'resource_data/x/views/v/map.js': 'function (doc) {\n    // @include lib/twice.js\n  emit(twice(doc.n), null);\n}\n',
    });
    try {
      const source = readFunctionSource(root, 'resource_data/x/views/v/map.js');
      expect(source).to.equal('function (doc) {\n    // Doubles.\n    function twice(n) {\n      return 2 * n;\n    }\n  emit(twice(doc.n), null);\n}');
      const emitted: unknown[] = [];
      vm.runInNewContext(`(${source})({ n: 21 })`, { emit: (key: unknown) => emitted.push(key) });
      expect(emitted).to.deep.equal([42]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses an @include of a file that is not there, naming both files', () => {
    const root = tempRoot({ 'resource_data/x/views/v/map.js': 'function (doc) {\n  // @include lib/missing.js\n}\n' });
    try {
      expect(() => loadDesignDocs(root)).to.throw(/resource_data\/x\/views\/v\/map\.js: @include lib\/missing\.js: no such file/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
