/** Obtain's answers aligned 1:1 with the request IDs (spec "Basic Obtain", rule 2), each distinct ID read once while the held answers stay within their budget. */
import { expect } from 'chai';
import { alignedAnswers, type ObtainEntry } from '../../../src/services/obtain/aligned-answers.js';

async function run(ids: string[], chunk: number, budget?: number): Promise<{ answers: ObtainEntry[]; reads: string[][] }> {
  const reads: string[][] = [];
  const read = async (asked: string[]): Promise<Map<string, ObtainEntry>> => {
    reads.push(asked);
    return new Map(asked.map((id) => [id, { doc_ID: id, document: id.startsWith('none') ? null : [{ doc_ID: id }, { doc_ID: `${id}-2` }] }]));
  };
  const answers: ObtainEntry[] = [];
  for await (const batch of alignedAnswers(ids, chunk, read, budget)) answers.push(...batch);
  return { answers, reads };
}

describe('obtain answers aligned with the request IDs', () => {
  it('answers every place of a repeated ID, in order, reading each distinct ID once', async () => {
    const ids = ['a', 'b', 'a', 'none-1', 'c', 'b', 'none-1', 'a'];
    const { answers, reads } = await run(ids, 3);
    expect(answers.map((entry) => entry.doc_ID)).to.deep.equal(ids);
    expect(reads).to.deep.equal([['a', 'b'], ['none-1', 'c']]);
  });

  it('holds answers within the budget (documents, at least 1 an entry): a repeat past it is read again, still in its place', async () => {
    // a and b weigh 2 documents each; with a budget of 3 only a is held for the next batch.
    const ids = ['a', 'b', 'x', 'a', 'b', 'y'];
    const { answers, reads } = await run(ids, 3, 3);
    expect(answers.map((entry) => entry.doc_ID)).to.deep.equal(ids);
    expect(reads).to.deep.equal([['a', 'b', 'x'], ['b', 'y']]);
  });
});
