/**
 * What a destination makes of documents from peers of other implementations (audit, session 34):
 * a document stamped with the spec's `publish_node` alone was refused ("must have required
 * property 'publishing_node'"), and a document the destination's filters leave out was answered
 * `forbidden: rejected by filter`, which the source counted refused, where the spec says
 * distribution gives no indicator that a document was filtered.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { scrape } from '../support/prometheus.js';

const OPS = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };
const AT = '2030-01-01T00:00:00.000000Z';

describe('/incoming: documents of peers of other implementations', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { filter: { filter_name: 'wanted only', include_exclude: true, active: true, filter: [{ filter_key: 'keys', filter_value: '^wanted$' }] } } });
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  /** A peer replicator's batch (new_edits false), answered once the node decided it. */
  async function arrive(docs: Doc[]): Promise<unknown> {
    const body = { new_edits: false, docs: docs.map((doc, i) => ({ create_timestamp: AT, update_timestamp: AT, node_timestamp: AT, ...doc, _id: doc.doc_ID, _rev: `1-${String(i).padStart(32, 'b')}` })) };
    const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: OPS, body: JSON.stringify(body) });
    expect(response.status).to.equal(201);
    return response.json();
  }
  const stored = async (id: string): Promise<Doc | undefined> => {
    try { return await node.couch.use(node.names.resourceData).get(id) as unknown as Doc; } catch { return undefined; }
  };

  it('takes a document stamped with the spec\'s publish_node alone, and keeps the value under both names', async () => {
    const [doc] = nsdlDocs(1).map((d) => ({ ...d, doc_ID: 'spec-stamped', keys: ['wanted'], publish_node: 'peer-node' }));
    expect(await arrive([doc as Doc])).to.deep.equal([]);
    expect(await stored('spec-stamped')).to.include({ publish_node: 'peer-node', publishing_node: 'peer-node' });
    // Neither name: still refused, as the stored-document schemas require.
    const [bare] = nsdlDocs(1).map((d) => ({ ...d, doc_ID: 'unstamped', keys: ['wanted'] }));
    const answer = await arrive([bare as Doc]) as { id: string; error: string; reason: string }[];
    expect(answer).to.have.length(1);
    expect(answer[0]).to.include({ id: 'unstamped', error: 'forbidden' });
    expect(answer[0]?.reason).to.match(/publishing_node/);
  });

  it('answers a document its filters leave out as taken, stores nothing of it, and counts it filtered', async () => {
    const docs = nsdlDocs(2).map((d, i) => ({ ...d, doc_ID: `filter-${i}`, publish_node: 'peer-node', publishing_node: 'peer-node', keys: [i === 0 ? 'wanted' : 'unwanted'] }));
    expect(await arrive(docs as Doc[])).to.deep.equal([]);
    expect(await stored('filter-0')).to.include({ doc_ID: 'filter-0' });
    expect(await stored('filter-1')).to.equal(undefined);
    expect((await scrape(`${node.url}/metrics`, { authorization: OPS.authorization })).value('lr_incoming_documents_total', { outcome: 'filtered' })).to.equal(1);
  });
});
