/**
 * `--sample-data` (src/sample-data.ts) when a start stopped while loading: the next start stores
 * the samples that are missing, never a second copy of those already stored.
 */
import { expect } from 'chai';
import { loadSampleData, sampleDocId } from '../../src/sample-data.js';
import { startTestNode, currentStatus, type TestNode } from '../support/node.js';

describe('sample data after a start that stopped while loading', () => {
  let node: TestNode;
  before(async () => { node = await startTestNode(); });
  after(async () => node.stop());

  it('stores only the missing samples when the marker was never written', async () => {
    expect(await loadSampleData(node)).to.include({ published: 100, skipped: false });
    expect((await currentStatus(node.url)).doc_count).to.equal(100);
    const db = node.couch.use(node.names.resourceData);
    // Stopped after storing 70 of the samples and before the marker: as if never written.
    const marker = await db.get('_local/sample_data_loaded');
    await db.destroy(marker._id, marker._rev);
    for (let index = 70; index < 100; index += 1) {
      const doc = await db.get(sampleDocId(index));
      await db.destroy(doc._id, doc._rev);
    }
    expect((await currentStatus(node.url)).doc_count).to.equal(70);
    expect(await loadSampleData(node)).to.deep.equal({ published: 30, refused: 0, skipped: false, already_stored: 70 });
    expect((await currentStatus(node.url)).doc_count).to.equal(100);
    expect(await loadSampleData(node)).to.include({ published: 0, skipped: true });
  });
});
