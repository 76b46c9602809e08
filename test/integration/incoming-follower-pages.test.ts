/**
 * The inbound follower reads the incoming database's `_changes` in pages (`limit`, and
 * `seq_interval` = `limit`: src/storage/distribution-incoming.ts) and goes on from each page's
 * `last_seq` only. On CouchDB 3 the rows then carry no sequence but every `seq_interval`-th; the
 * embedded store ignores the parameter. Either way every document arrives once, page after page.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startTestNode, tempDir, type TestNode } from '../support/node.js';
import { openSuiteStore, type SuiteStore } from '../support/suite-store.js';
import { waitFor } from '../support/network.js';
import { ensureDatabases } from '../../src/storage/bootstrap.js';
import { IncomingRepository } from '../../src/storage/distribution-incoming.js';

const COUNT = 1100;
const PAGE = 500;
const AT = '2025-01-01T00:00:00.000000Z';

/** Documents as a source node's replicator leaves them in incoming (the follower's path). */
const arriving = (tag: string): Doc[] => nsdlDocs(100).flatMap((doc, i) => Array.from({ length: Math.ceil(COUNT / 100) }, (_, j) => {
  const id = `${tag}-${i}-${j}`;
  return { ...doc, _id: id, doc_ID: id, resource_locator: `http://example.org/${tag}/${i}/${j}`, publishing_node: 'elsewhere', publish_node: 'elsewhere', create_timestamp: AT, update_timestamp: AT, node_timestamp: AT };
})).slice(0, COUNT);

async function writeAll(store: { couch: TestNode['couch'] }, db: string, docs: Doc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 500) {
    const results = await store.couch.use(db).bulk({ docs: docs.slice(i, i + 500) });
    expect(results.filter((result) => result.error)).to.deep.equal([]);
  }
}

describe('incoming _changes pages (limit and seq_interval)', function () {
  this.timeout(180000);

  describe('IncomingRepository.changes on the suite\'s store', () => {
    let dataDir: string;
    let store: SuiteStore;
    before(async () => {
      dataDir = tempDir('lr-incoming-pages-');
      store = await openSuiteStore(dataDir);
      await ensureDatabases(store.couch, store.names);
    });
    after(async () => {
      await store?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`pages through ${COUNT} changes from last_seq to last_seq, each once; on CouchDB one sequence per page at most`, async () => {
      await writeAll(store, store.names.incoming, arriving('paged'));
      const repo = new IncomingRepository(store.couch, store.names);
      const seen: string[] = [];
      const sizes: number[] = [];
      let since: unknown;
      for (;;) {
        const page = await repo.changes(since, PAGE);
        if (page.results.length === 0) break;
        sizes.push(page.results.length);
        seen.push(...page.results.map((change) => change.id));
        // Store-specific: CouchDB honours seq_interval (rows carry `seq: null` between), the
        // embedded store gives every row its sequence.
        const sequences = page.results.filter((change) => change.seq !== null && change.seq !== undefined).length;
        if (store.embedded) expect(sequences).to.equal(page.results.length);
        else expect(sequences, 'rows with a sequence in one page').to.be.at.most(1);
        expect(page.lastSeq).to.not.equal(since);
        since = page.lastSeq;
      }
      expect(sizes).to.deep.equal([500, 500, 100]);
      expect(new Set(seen).size).to.equal(COUNT);
      expect(seen.length).to.equal(COUNT);
    });
  });

  describe('the inbound follower of a running node', () => {
    let node: TestNode;
    before(async () => { node = await startTestNode({ env: { INDEX_WARMING: 'off' } }); });
    after(async () => { await node?.stop(); });

    it(`stores ${COUNT} documents written straight into incoming, each once, in pages of ${PAGE}`, async () => {
      const docs = arriving('followed');
      await writeAll(node, node.names.incoming, docs);
      const resources = node.couch.use(node.names.resourceData);
      const incoming = node.couch.use(node.names.incoming);
      const stored = await waitFor(`${COUNT} documents stored and incoming empty`, async () => {
        const rows = (await resources.list({ startkey: 'followed-', endkey: 'followed-\ufff0' })).rows;
        const left = (await incoming.list()).rows.filter((row) => !row.id.startsWith('_design/')).length;
        return rows.length === COUNT && left === 0 ? rows : undefined;
      }, 150000);
      expect(stored.map((row) => row.id).sort()).to.deep.equal(docs.map((doc) => String(doc._id)).sort());
      expect(stored.filter((row) => !row.value.rev.startsWith('1-')).map((row) => row.id)).to.deep.equal([]);
      const checkpoint = await incoming.get('_local/lr-incoming-follower') as unknown as { since?: unknown };
      expect(checkpoint.since).to.not.equal(undefined);
    });
  });
});
