/**
 * Documents stored per day (issue 17) on a real embedded store: counted from the node_timestamp
 * view by keyset, saved in `_local/lr-daily-stored`, and later reads go on from the saved
 * position (nothing counted twice); rows younger than a minute are counted but not saved.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, postJson, basicAuth, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { DailyCounts } from '../../src/services/monitoring/daily-counts.js';
import { DAILY_COUNTS_ID, MonitoringRepository } from '../../src/storage/monitoring-repository.js';
import { ViewReader } from '../../src/storage/view-reader.js';

describe('documents stored per day', function () {
  this.timeout(60000);
  let node: TestNode;
  const publish = async (count: number): Promise<void> => {
    const { body } = await postJson(`${node.url}/publish`, { documents: nsdlDocs(count) }, { authorization: basicAuth('pub', 'a long password 1') });
    expect((body.document_results as { OK: boolean }[]).every((result) => result.OK)).to.equal(true);
  };
  const saved = async (): Promise<{ days: Record<string, number>; after: { key: string; id: string } | null } | undefined> =>
    node.couch.use(node.names.resourceData).get(DAILY_COUNTS_ID).then((doc) => doc as never, () => undefined);

  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'pub', 'a long password 1');
  });
  after(async () => { await node?.stop(); });

  it('counts what was just stored without saving it, then saves settled rows and goes on from there', async function () {
    // The test reads the day two minutes on as "later": within five minutes of midnight UTC that
    // would be tomorrow (a CI run at 00:03 failed so), so it starts once the new day has begun.
    this.timeout(420_000);
    const untilMidnight = new Date().setUTCHours(24, 0, 0, 0) - Date.now();
    if (untilMidnight < 300_000) await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1000));
    await publish(5);
    const today = new Date().toISOString().slice(0, 10);
    const store = new MonitoringRepository(node.couch, node.names, new ViewReader(30_000));
    const now = new DailyCounts(store, () => new Date());
    const fresh = await now.lastDays(3);
    expect(fresh.days.map((day) => day.day)).to.have.length(3);
    expect(fresh.days.at(-1)).to.deep.equal({ day: today, stored: 5 });
    expect(await saved()).to.equal(undefined); // younger than a minute: not saved yet

    // Two minutes later the rows have settled: they are saved with the position reached.
    const later = new DailyCounts(store, () => new Date(Date.now() + 120_000));
    expect((await later.lastDays(1)).days).to.deep.equal([{ day: today, stored: 5 }]);
    const first = await saved();
    expect(first?.days).to.deep.equal({ [today]: 5 });
    expect(first?.after?.key.slice(0, 10)).to.equal(today);

    // A second read counts nothing twice; new documents are added from the saved position on.
    expect((await later.lastDays(1)).days).to.deep.equal([{ day: today, stored: 5 }]);
    await publish(2);
    expect((await later.lastDays(1)).days).to.deep.equal([{ day: today, stored: 7 }]);
    const second = await saved();
    expect(second?.days).to.deep.equal({ [today]: 7 });
    expect((second?.after?.key ?? '') > (first?.after?.key ?? '')).to.equal(true);
  });
});
