/**
 * _bulk_docs answers one result per document in the order of the request (CouchDB 3 API,
 * POST /{db}/_bulk_docs), which src/storage/resource-writes.ts relies on to give each published
 * document its own outcome. The embedded store did not: pouchdb-bulkdocs-wrapper (under the
 * validate_doc_update wrapper) returned results in the order the validations settled, so a
 * same-doc_ID republish that conflicted could be reported OK and never written.
 * patches/pouchdb-bulkdocs-wrapper+5.0.1-rc1.0.patch keeps the order; this test runs on whichever
 * store the suite runs against, CouchDB being the reference.
 */
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';

const VALIDATE = 'function (newDoc) { if (newDoc.refuse) { throw ({ forbidden: "refused by the test" }); } }';

describe('_bulk_docs results in request order (the store under test)', function () {
  this.timeout(60000);
  let node: TestNode;
  let database: string;
  before(async () => {
    node = await startTestNode({ env: { INDEX_WARMING: 'off' } });
    database = `${node.names.resourceData}_bulk_order`;
    await node.couch.db.create(database);
    await node.couch.use(database).insert({ _id: '_design/validate', validate_doc_update: VALIDATE } as never);
  });
  after(async () => {
    await node.couch.db.destroy(database).catch(() => undefined);
    await node.stop();
  });

  it('gives every document its own result at its position: written, conflicting, refused by validate_doc_update', async () => {
    const db = node.couch.use<Record<string, unknown>>(database);
    for (let round = 0; round < 12; round += 1) {
      const existing = `existing-${round}`;
      await db.insert({ _id: existing, v: 'old' });
      const docs: Record<string, unknown>[] = Array.from({ length: 60 }, (_, i) => ({ _id: `r${round}-${i}`, v: 'x'.repeat(200 + ((i * 37) % 300)) }));
      docs[(round * 7) % 60] = { _id: existing, v: 'new' };
      docs[(round * 11 + 5) % 60] = { _id: `refused-${round}`, refuse: true };
      const answer = await db.bulk({ docs });
      expect(answer.map((result) => result.id), `round ${round}`).to.deep.equal(docs.map((doc) => doc._id));
      for (const [index, result] of answer.entries()) {
        const id = docs[index]?._id as string;
        if (id === existing) expect(result.error, id).to.equal('conflict');
        else if (id.startsWith('refused-')) expect(result.error, id).to.equal('forbidden');
        else expect(result.rev, id).to.match(/^1-/);
      }
      expect((await db.get(existing)).v).to.equal('old');
    }
  });
});
