/** The bounds of read-ahead (src/storage/read-ahead.ts): what is held, for how long, and what a read may take. */
import { expect } from 'chai';
import { ReadAhead, type ReadAheadOutcome } from '../../../src/storage/read-ahead.js';

interface Answer { rows: { id: string; key: unknown; value: number }[]; update_seq: number }
const answer = (count: number): Answer => ({ rows: Array.from({ length: count }, (_, i) => ({ id: `d${i}`, key: [i], value: 0 })), update_seq: 7 });

describe('ReadAhead', () => {
  let outcomes: ReadAheadOutcome[];
  const readAhead = (maxPages = 2, maxAgeMs = 10000): ReadAhead => new ReadAhead({ maxPages, maxAgeMs }, (outcome) => outcomes.push(outcome));
  beforeEach(() => { outcomes = []; });

  it('gives a page to the read with the same parameters, once, trimmed to its limit', async () => {
    const ahead = readAhead();
    ahead.offer('db', 'harvest', 'v', { startkey: [1], endkey: [9], limit: 5 }, async () => answer(5));
    expect(ahead.take('db', 'harvest', 'v', { startkey: [2], endkey: [9], limit: 5 })).to.equal(undefined);
    const taken = await ahead.take<Answer>('db', 'harvest', 'v', { startkey: [1], endkey: [9], limit: 3 });
    expect(taken?.rows.map((row) => row.id)).to.deep.equal(['d0', 'd1', 'd2']);
    expect(taken?.update_seq).to.equal(7);
    expect(ahead.take('db', 'harvest', 'v', { startkey: [1], endkey: [9], limit: 3 })).to.equal(undefined);
    expect(outcomes).to.deep.equal(['started']);
  });

  it('does not serve a read asking for more rows than were read ahead, nor one of another database, view or row set', () => {
    const ahead = readAhead(4);
    ahead.offer('db', 'harvest', 'v', { startkey: [1], limit: 3, include_docs: true }, async () => answer(3));
    expect(ahead.take('db', 'harvest', 'v', { startkey: [1], limit: 4, include_docs: true })).to.equal(undefined);
    expect(ahead.take('other', 'harvest', 'v', { startkey: [1], limit: 3, include_docs: true })).to.equal(undefined);
    expect(ahead.take('db', 'harvest', 'w', { startkey: [1], limit: 3, include_docs: true })).to.equal(undefined);
    expect(ahead.take('db', 'harvest', 'v', { startkey: [1], limit: 3 })).to.equal(undefined);
    expect(ahead.take('db', 'harvest', 'v', { startkey: [1], limit: 3, include_docs: true, descending: true })).to.equal(undefined);
  });

  it('holds at most maxPages and pushes none out: a read nobody takes would be the store\'s time wasted', async () => {
    const ahead = readAhead(2);
    let reads = 0;
    const read = async (): Promise<Answer> => { reads += 1; return answer(1); };
    for (const start of [1, 2, 3]) ahead.offer('db', 'd', 'v', { startkey: [start], limit: 1 }, read);
    ahead.offer('db', 'd', 'v', { startkey: [1], limit: 1 }, read); // already held: not read again
    expect(reads).to.equal(2);
    expect(outcomes).to.deep.equal(['started', 'started', 'full']);
    expect(await ahead.take('db', 'd', 'v', { startkey: [1], limit: 1 })).to.not.equal(undefined);
    expect(ahead.take('db', 'd', 'v', { startkey: [3], limit: 1 })).to.equal(undefined);
  });

  it('drops a page not asked for within maxAgeMs, and gives undefined for a read that failed', async () => {
    const ahead = readAhead(4, 20);
    ahead.offer('db', 'd', 'v', { startkey: [1], limit: 1 }, async () => answer(1));
    ahead.offer('db', 'd', 'v', { startkey: [2], limit: 1 }, async () => { throw new Error('store down'); });
    expect(await ahead.take('db', 'd', 'v', { startkey: [2], limit: 1 })).to.equal(undefined);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ahead.take('db', 'd', 'v', { startkey: [1], limit: 1 })).to.equal(undefined);
    expect(outcomes).to.deep.equal(['started', 'started', 'failed', 'expired']);
  });
});
