/**
 * Two updates of one doc_ID racing (spec "States and transitions": an unsigned original is
 * replaced in total by its submitter): the one written second met the first as a conflict and
 * was decided again, but kept the timestamps taken when its request began, so the stored version
 * could carry an earlier update_timestamp and node_timestamp than the version it replaced (an
 * audit: 11 of 20 races across two node processes, 4 of 20 in one). A peer holding the first
 * then took the second for an older copy, and an incremental harvester never saw it. Each new
 * version must be stamped after the one before.
 * Runs on the suite's store: CouchDB with TEST_COUCHDB_URL, embedded otherwise.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { compareTimestamps } from '../../src/domain/timestamps.js';

const AUTH = { authorization: basicAuth('racer', 'racer-password-1') };

describe('racing updates of one doc_ID', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'racer', 'racer-password-1');
  });
  after(async () => node.stop());

  it('stamp each stored version after the version it replaced', async () => {
    const [base] = nsdlDocs(1);
    const db = node.couch.use<Record<string, unknown>>(node.names.resourceData);
    const backwards: string[] = [];
    for (let race = 0; race < 12; race += 1) {
      const docId = `urn:race:${race}`;
      const version = (keys: string[]): Record<string, unknown> => ({ ...base, doc_ID: docId, keys, resource_locator: `http://example.org/race/${race}` });
      expect((await postJson(`${node.url}/publish`, { documents: [version(['v0'])] }, AUTH)).body.OK).to.equal(true);
      const answers = await Promise.all([['a'], ['b']].map((keys) => postJson(`${node.url}/publish`, { documents: [version(keys)] }, AUTH)));
      for (const answer of answers) expect((answer.body.document_results as { OK: boolean }[])[0]?.OK, JSON.stringify(answer.body)).to.equal(true);
      const current = await db.get(docId, { revs_info: true }) as Record<string, unknown> & { _revs_info: { rev: string }[] };
      const previous = await db.get(docId, { rev: current._revs_info[1]?.rev as string });
      for (const field of ['update_timestamp', 'node_timestamp']) {
        if (!((compareTimestamps(current[field], previous[field]) ?? 0) > 0)) backwards.push(`${docId} ${field}: ${String(previous[field])} then ${String(current[field])}`);
      }
    }
    expect(backwards).to.deep.equal([]);
  });
});
