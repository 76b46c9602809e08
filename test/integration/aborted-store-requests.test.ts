/**
 * A store request the node gives up on ends when the node gives up (src/storage/couch.ts,
 * abortableRequest): the bounded view read of issue 14 and the `_changes` followers rely on it.
 * Without it, on the embedded store, a `_changes` longpoll aborted after its headers had arrived
 * ran to its 30 s timeout in about half the trials while the store was busy writing; a view read
 * held a request 20 s past VIEW_WAIT_MS (the CI failure of stop 20) and a stopping node waited
 * out its followers' longpolls (27 s instead of under 1).
 */
import { expect } from 'chai';
import { abortableRequest } from '../../src/storage/couch.js';
import { startTestNode, type TestNode } from '../support/node.js';

describe('store requests the node gives up on', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(async () => node?.stop());

  it('an aborted _changes longpoll settles at once, whatever the exchange had reached, while the store is busy', async () => {
    const quiet = `${node.names.resourceData}-quiet`;
    const busy = `${node.names.resourceData}-busy`;
    await node.couch.db.create(quiet);
    await node.couch.db.create(busy);
    try {
      let writing = true;
      const writer = (async () => {
        for (let round = 0; writing; round++) {
          await node.couch.use(busy).bulk({ docs: Array.from({ length: 100 }, (_, i) => ({ _id: `d${round}-${i}`, text: 'x'.repeat(500) })) });
        }
      })();
      const settledIn: number[] = [];
      try {
        for (let trial = 0; trial < 6; trial++) {
          const controller = new AbortController();
          const polls = Array.from({ length: 4 }, () => abortableRequest(node.couch, { db: quiet, path: '_changes', qs: { feed: 'longpoll', since: 'now', timeout: 30000 } }, controller.signal)
            .then(() => 'answered', (error: Error) => `rejected: ${error.name}`));
          await new Promise((resolve) => setTimeout(resolve, 300 + trial * 120));
          const aborted = Date.now();
          controller.abort();
          const outcomes = await Promise.all(polls);
          settledIn.push(Date.now() - aborted);
          expect(new Set(outcomes)).to.deep.equal(new Set(['rejected: AbortError']));
        }
      } finally {
        writing = false;
        await writer;
      }
      expect(Math.max(...settledIn), `settled in ${settledIn.join(', ')} ms`).to.be.below(1000);
    } finally {
      await node.couch.db.destroy(quiet);
      await node.couch.db.destroy(busy);
    }
  });

  it('a request whose signal has already aborted is rejected without reaching the store', async () => {
    const controller = new AbortController();
    controller.abort();
    let error: unknown;
    try {
      await abortableRequest(node.couch, { db: node.names.resourceData }, controller.signal);
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).name).to.equal('AbortError');
  });

  it('a node whose document feeds wait in longpolls stops in seconds, not at their timeout', async () => {
    const other = await startTestNode();
    // Reading /status starts the node's document feeds (src/storage/followed-documents.ts), which then wait in longpolls.
    await fetch(`${other.url}/status`).then((response) => response.arrayBuffer());
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const started = Date.now();
    await other.stop();
    expect(Date.now() - started).to.be.below(10000);
  });
});
