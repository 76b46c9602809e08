/**
 * Drift test: the Mango selector distribution uses on CouchDB 3 (LIVE_FOR_DISTRIBUTION_SELECTOR,
 * src/domain/filters.ts) selects exactly what the filter function
 * design-docs/resource_data/distribute/filters/live_for_destination.js passes with no destination
 * filter. Both are evaluated by the store itself (`_changes` with `filter=_selector` and with the
 * design-doc filter), on each store the suite runs on.
 */
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';
import { LIVE_FOR_DISTRIBUTION_SELECTOR } from '../../src/domain/filters.js';

const base = { doc_type: 'resource_data', resource_locator: 'http://example.org/r', keys: ['k'], node_timestamp: '2024-01-01T00:00:00.000000Z' };

/** Every kind of document the resource database holds, by the _id that names the case. */
const CASES: Record<string, Record<string, unknown>> = {
  live: base,
  'live-node-deleted-false': { ...base, node_deleted: false },
  'live-node-deleted-empty': { ...base, node_deleted: '' },
  'live-node-deleted-null': { ...base, node_deleted: null },
  'marked-deleted': { ...base, node_deleted: '2024-02-01T00:00:00.000000Z' },
  'marked-deleted-true': { ...base, node_deleted: true },
  'do-not-distribute': { ...base, do_not_distribute: 'true' },
  'do-not-distribute-false': { ...base, do_not_distribute: false },
  tombstone: { doc_type: 'tombstone', replaced_by: 'live', node_timestamp: base.node_timestamp },
  'no-doc-type': { resource_locator: 'http://example.org/r' },
  'other-doc-type': { ...base, doc_type: 'paradata' },
  'upper-case-type': { ...base, doc_type: 'Resource_Data' },
};

describe('distribution selector and filter function agree', () => {
  let node: TestNode;
  before(async () => { node = await startTestNode(); });
  after(async () => node.stop());

  it('select the same documents of every kind, and never a design document or a deleted one', async () => {
    const db = node.couch.use(node.names.resourceData);
    await db.bulk({ docs: Object.entries(CASES).map(([id, doc]) => ({ _id: id, ...doc })) });
    const gone = await db.insert({ _id: 'couch-deleted', ...base } as never);
    await db.destroy('couch-deleted', gone.rev);
    const ids = (body: unknown): string[] => ((body as { results: { id: string }[] }).results).map((row) => row.id).sort();
    const byFilter = ids(await node.couch.request({ db: node.names.resourceData, path: '_changes', qs: { filter: 'distribute/live_for_destination' } }));
    const bySelector = ids(await node.couch.request({ db: node.names.resourceData, method: 'POST', path: '_changes', qs: { filter: '_selector' }, body: { selector: LIVE_FOR_DISTRIBUTION_SELECTOR } }));
    expect(byFilter).to.deep.equal(['live', 'live-node-deleted-empty', 'live-node-deleted-false', 'live-node-deleted-null']);
    expect(bySelector).to.deep.equal(byFilter);
  });
});
