/**
 * An operator at the default log level (info) sees why a peer's documents were refused: the
 * replicator is told only that they were (`forbidden`, the source counts them in docs_refused),
 * so the log is where the reasons are. The reasons are bounded (src/services/distribute/rejection-summary.ts): the most frequent five,
 * each with its count and one clipped doc_ID, so a flood of bad documents cannot flood the log.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';

const ADMIN = { authorization: basicAuth('ops', 'ops-password-1'), 'content-type': 'application/json' };

interface Processed { level: number; msg: string; stored: number; rejected: number; reasons?: { error: string; count: number; example_doc_ID: string }[]; more_reasons?: number }

describe('/incoming: the reasons of refused documents in the log at the default level', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ env: { LOG_LEVEL: 'info' } });
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node.stop());

  it('names the five most frequent reasons, with counts and one clipped doc_ID each, and how many more there were', async () => {
    const [base] = nsdlDocs(1) as [Doc];
    let sequence = 0;
    const arrived = (fields: Doc, drop: string[] = []): Doc => {
      sequence += 1;
      const doc: Doc = { ...base, _id: `arrived-${sequence}`, _rev: `1-${String(sequence).padStart(4, 'a')}`, doc_ID: `refused-${sequence}`, publishing_node: 'elsewhere', node_timestamp: '2026-01-01T00:00:00.000000Z', create_timestamp: '2026-01-01T00:00:00.000000Z', update_timestamp: '2026-01-01T00:00:00.000000Z', ...fields };
      for (const key of drop) delete doc[key];
      return doc;
    };
    const longId = `long-${'x'.repeat(5000)}`;
    const docs = [
      arrived({ doc_ID: longId, do_not_distribute: 'true' }), arrived({ do_not_distribute: 'true' }), arrived({ do_not_distribute: 'true' }),
      arrived({ doc_ID: '_design/evil' }), arrived({ doc_ID: 'control\u0001id' }),
      arrived({}, ['resource_locator']), arrived({}, ['TOS']), arrived({}, ['resource_data_type']), arrived({}, ['identity']),
      arrived({ doc_ID: 'arrived-good' }),
    ];
    const from = node.logs.length;
    const response = await fetch(`${node.url}/incoming/_bulk_docs`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ docs, new_edits: false }) });
    expect(response.status).to.equal(201);
    const lines = node.logs.slice(from).map((line) => JSON.parse(line) as Processed).filter((entry) => entry.msg === 'incoming documents processed');
    expect(lines).to.have.length(1);
    const [line] = lines as [Processed];
    expect(line.level).to.equal(30);
    expect(line).to.include({ stored: 1, rejected: docs.length - 1 });
    expect(line.reasons).to.have.length(5);
    expect(line.reasons?.[0]).to.deep.equal({ error: 'do_not_distribute', count: 3, example_doc_ID: `${longId.slice(0, 200)}… (${longId.length} characters)` });
    expect(line.reasons?.slice(1).map((reason) => reason.count)).to.deep.equal([1, 1, 1, 1]);
    expect(line.more_reasons).to.equal(2);
  });
});
