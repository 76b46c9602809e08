/**
 * design-docs/{node,community,network}/node-admin/validate_doc_update.js: the node's own
 * databases are written by the node (a server admin) only. The three files are one rule, kept
 * as three files because a design doc is per database and CouchDB's CommonJS modules do not
 * reach across design docs; this test keeps them identical.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { validateFunction } from '../support/sandbox.js';
import { ROOT } from '../support/process.js';

const FILES = ['node', 'community', 'network'].map((db) => `${db}/node-admin/validate_doc_update.js`);
const doc = { _id: 'node_description', doc_type: 'node_description' };

describe('design-docs node-admin: only a server admin writes the node\'s own databases', () => {
  it('is one function in the three databases', () => {
    const [first, ...others] = FILES.map((file) => fs.readFileSync(path.join(ROOT, 'design-docs', file), 'utf8'));
    for (const [index, other] of others.entries()) expect(other, FILES[index + 1]).to.equal(first);
  });

  for (const file of FILES) {
    it(`${file}: accepts a server admin, refuses anyone else as forbidden`, () => {
      const validate = validateFunction(file);
      expect(validate(doc, null, { name: 'admin', roles: ['_admin'] })).to.equal(undefined);
      expect(validate({ ...doc, _deleted: true }, doc, { name: null, roles: ['reader', '_admin'] })).to.equal(undefined);
      for (const userCtx of [{ name: 'publisher', roles: ['publisher'] }, { name: null, roles: [] }, { name: 'x' }, null]) {
        expect(validate(doc, null, userCtx), JSON.stringify(userCtx)).to.have.property('forbidden').that.is.a('string');
      }
    });
  }
});
