/**
 * The shared `_changes` reads of src/storage/backlog-feed.ts: a read serves every request that was
 * waiting when it started, never one that arrived after it started (that request must see the
 * changes acknowledged before it arrived, so it waits for the next read).
 */
import { expect } from 'chai';
import { BacklogFeed } from '../../../src/storage/backlog-feed.js';
import type { Database } from '../../../src/storage/documents.js';

/** A database whose `_changes` answers only when the test says so, one read at a time. */
function heldStore() {
  const reads: { qs: Record<string, unknown>; answer: (ids: string[]) => void }[] = [];
  const db = {
    config: { db: 'resource_data' },
    server: {
      request: (options: { path: string; qs: Record<string, unknown> }) => new Promise((resolve) => {
        reads.push({ qs: options.qs, answer: (ids) => resolve({ results: ids.map((id) => ({ id, changes: [{ rev: `1-${id}` }] })) }) });
      }),
    },
  } as unknown as Database;
  return { db, reads };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('shared reads of the changes an index has not seen (backlog-feed)', () => {
  it('shares a read among the requests waiting for it, and never with one that arrived after it started', async () => {
    const { db, reads } = heldStore();
    const feed = new BacklogFeed();
    const signal = new AbortController().signal;
    const first = feed.changesSince(db, '7', 10, signal);
    await tick();
    expect(reads).to.have.length(1);
    // Arrived while the first read runs: both wait for one next read, started when the first ends.
    const second = feed.changesSince(db, '7', 10, signal);
    const third = feed.changesSince(db, '7', 10, signal);
    await tick();
    expect(reads).to.have.length(1);
    reads[0]?.answer(['a']);
    expect((await first)?.map((entry) => entry.id)).to.deep.equal(['a']);
    await tick();
    expect(reads).to.have.length(2);
    reads[1]?.answer(['a', 'b']);
    expect((await second)?.map((entry) => entry.id)).to.deep.equal(['a', 'b']);
    expect(await third).to.equal(await second);
    // Another sequence is another read, at once.
    void feed.changesSince(db, '9', 10, signal);
    await tick();
    expect(reads).to.have.length(3);
    expect(reads[2]?.qs).to.include({ since: '9', limit: 11 });
  });

  it('answers undefined past the limit, and lets a request give up without ending the shared read', async () => {
    const { db, reads } = heldStore();
    const feed = new BacklogFeed();
    const patient = feed.changesSince(db, '1', 2, new AbortController().signal);
    const hurried = new AbortController();
    const leaving = feed.changesSince(db, '1', 2, hurried.signal);
    await tick();
    // `leaving` joined nothing that had started: it waits for the next read, and gives up first.
    hurried.abort(new Error('gone'));
    const outcome = await leaving.then(() => 'answered', (error: Error) => error.message);
    expect(outcome).to.equal('gone');
    reads[0]?.answer(['a', 'b', 'c']);
    expect(await patient).to.equal(undefined);
  });
});
