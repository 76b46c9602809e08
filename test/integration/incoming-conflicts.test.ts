/**
 * A document in conflict at the source arrives as several revisions in one replicated batch
 * (new_edits=false). The node keeps the revision CouchDB shows, its deterministic winner, and
 * answers the batch; it answered 503 to every such batch, so distribution from that source
 * stopped for good (src/domain/revisions.ts).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { winningRevisions } from '../../src/domain/revisions.js';

const at = '2020-01-01T00:00:00.000000Z';

describe('replicated revisions in conflict', function () {
  this.timeout(60000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node?.stop());

  it('picks CouchDB\'s winner: the longest history, then the greatest revision id', () => {
    const docs = [{ _id: 'a', _rev: '2-aaa' }, { _id: 'b', _rev: '1-zzz' }, { _id: 'a', _rev: '2-bbb' }, { _id: 'a', _rev: '10-000' }, { _id: 'b', _rev: '1-yyy' }];
    expect(winningRevisions(docs)).to.deep.equal([{ _id: 'b', _rev: '1-zzz' }, { _id: 'a', _rev: '10-000' }]);
  });

  it('a batch holding two revisions of one document is stored (the winner), not refused with 503, also when sent again', async () => {
    const [first, second] = nsdlDocs(2) as [Doc, Doc];
    const arriving = (doc: Doc, id: string, rev: string, keys: string[]): Doc => ({
      ...doc, _id: id, _rev: rev, doc_ID: id, keys, identity: { submitter: 'elsewhere', submitter_type: 'agent' },
      publish_node: 'elsewhere', publishing_node: 'elsewhere', create_timestamp: at, update_timestamp: at, node_timestamp: at,
    });
    const batch = [arriving(first, 'conflicted-1', '2-aaaa', ['losing']), arriving(second, 'plain-1', '1-cccc', ['plain']), arriving(first, 'conflicted-1', '2-bbbb', ['winning'])];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' }, body: JSON.stringify({ docs: batch, new_edits: false }) });
      expect(response.status, await response.text()).to.equal(201);
    }
    const stored = await node.couch.use(node.names.resourceData).get('conflicted-1') as unknown as Doc;
    expect(stored.keys).to.deep.equal(['winning']);
    expect((await node.couch.use(node.names.resourceData).get('plain-1') as unknown as Doc).keys).to.deep.equal(['plain']);
  });
});
