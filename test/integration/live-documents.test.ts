/**
 * One rule of "live" through the HTTP interface (issue 12): /status doc_count, distribution step 1
 * (spec "Distribution": "the resource document database holds resource_data documents"), obtain,
 * slice and harvest all treat the same stored documents (test/fixtures/documents/resource-states.json)
 * alike. Deletion documents, tombstones and documents marked by Basic Delete are not live; a
 * falsy node_deleted is no mark.
 */
import { expect } from 'chai';
import { startTestNode, getJson, postJson, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { fixture, type Doc } from '../support/documents.js';
import { waitFor } from '../support/network.js';

const STATES = fixture<{ documents: Record<string, Doc> }>('documents/resource-states.json').documents;
/** The stored documents of the fixture (its design document would replace the node's own). */
const stored = (ids: string[]): Doc[] => ids.map((id) => ({ _id: id, ...STATES[id] }));
const NOT_LIVE = ['deletion-document', 'deletion-document-with-schema', 'marked-deleted', 'marked-deleted-true', 'replaced', 'tombstone-deleted'];
const LIVE = ['do-not-distribute', 'do-not-distribute-false', 'live', 'live-linked', 'node-deleted-false', 'node-deleted-null', 'replacement'];
const OTHER = ['no-node-timestamp', 'other-doc-type', 'upper-case-type', 'node-description', 'advance-tombstone'];

describe('live documents: one rule for /status, distribution, obtain, slice and harvest', function () {
  this.timeout(60000);
  let node: TestNode;
  const admin = { authorization: basicAuth('ops', 'ops-password-123') };

  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'ops', 'ops-password-123', 'network_admin');
  });
  after(async () => node.stop());

  /** /status answers at once, with doc_count_current false while its view catches up (issue 14): the current count. */
  const liveCount = async (): Promise<unknown> => waitFor('a current /status count', async () => {
    const { body } = await getJson(`${node.url}/status`);
    return body.doc_count_current === true ? body.doc_count : undefined;
  });

  it('a store holding only deletion documents, tombstones and marked documents has none live: /status counts 0 and /distribute stops at step 1', async () => {
    await node.couch.use(node.names.resourceData).bulk({ docs: stored([...NOT_LIVE, ...OTHER]) });
    expect(await liveCount()).to.equal(0);
    const answer = await postJson(`${node.url}/distribute`, '', admin);
    expect(answer.status).to.equal(500);
    expect(answer.body).to.deep.equal({ OK: false, error: 'the resource data database holds no resource_data documents' });
  });

  it('with live documents stored, /status counts them and /distribute runs', async () => {
    await node.couch.use(node.names.resourceData).bulk({ docs: stored(LIVE) });
    expect(await liveCount()).to.equal(LIVE.length);
    const answer = await postJson(`${node.url}/distribute`, '', admin);
    expect(answer.body).to.include({ OK: true });
  });

  it('obtain by doc_ID returns exactly the live documents, in their public form', async () => {
    const ids = [...LIVE, ...NOT_LIVE, ...OTHER];
    const { body } = await postJson(`${node.url}/obtain`, { request_IDs: ids, by_doc_ID: true });
    const documents = body.documents as { doc_ID: string; document: Doc[] | null }[];
    expect(documents.filter((entry) => entry.document !== null).map((entry) => entry.doc_ID).sort()).to.deep.equal(LIVE);
    const live = documents.find((entry) => entry.doc_ID === 'live')?.document?.[0] ?? {};
    expect(Object.keys(live).filter((key) => key.startsWith('_') || key === 'node_publisher_account')).to.deep.equal([]);
  });

  it('slice returns exactly the live documents', async () => {
    const { body } = await getJson(`${node.url}/slice?ids_only=T`);
    expect((body.documents as { doc_ID: string }[]).map((entry) => entry.doc_ID).sort()).to.deep.equal(LIVE);
  });

  it('harvest lists every resource record, with status deleted exactly for the ones that are not live', async () => {
    const { body } = await getJson(`${node.url}/harvest/listidentifiers`);
    const headers = (body.listidentifiers as { header: { identifier: string; status: string } }[]).map((entry) => entry.header);
    expect(headers.filter((header) => header.status === 'active').map((header) => header.identifier).sort()).to.deep.equal(LIVE);
    expect(headers.filter((header) => header.status === 'deleted').map((header) => header.identifier).sort()).to.deep.equal(NOT_LIVE);
  });

  // Distribution step 1 reads harvest's view a page of 100 rows at a time and looks for a row
  // valued 0 (src/storage/distribution-outbound.ts): live documents behind more than a page of
  // deleted ones still count.
  it('/distribute still finds live documents behind 250 older tombstones', async () => {
    const tombstone = STATES.replaced as Doc;
    await node.couch.use(node.names.resourceData).bulk({ docs: Array.from({ length: 250 }, (_, i) => ({
      ...tombstone, _id: `t-${i}`, doc_ID: `t-${i}`, node_timestamp: `2023-01-01T00:00:00.${String(i).padStart(6, '0')}Z`,
    })) });
    const answer = await postJson(`${node.url}/distribute`, '', admin);
    expect(answer.body).to.include({ OK: true });
  });
});

