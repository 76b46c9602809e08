// What a source and a destination say of a filter description the design doc's filter function
// cannot apply (domain/filters.ts filterDescriptionProblem): every case the function would answer
// by passing nothing is named, and a peer's long pattern is clipped before it reaches /status.
import vm from 'node:vm';
import fs from 'node:fs';
import { expect } from 'chai';
import { filterDescriptionProblem } from '../../../src/domain/filters.js';

const source = fs.readFileSync(new URL('../../../design-docs/resource_data/distribute/filters/live_for_destination.js', import.meta.url), 'utf8');
const filterFunction = vm.runInNewContext(`(${source})`) as (doc: unknown, req: unknown) => boolean;
const passes = (filter: unknown[], includeExclude: boolean): boolean =>
  filterFunction({ doc_type: 'resource_data', keys: ['physics'] }, { query: { filter_description: JSON.stringify({ filter, include_exclude: includeExclude }) } });

describe('filterDescriptionProblem', () => {
  it('names a rule that is no object, which the filter function answers by passing nothing', () => {
    // Excluding "math", the function passes a physics document; with a rule that is no object, nothing.
    expect(passes([{ filter_key: 'keys', filter_value: 'math' }], false)).to.equal(true);
    for (const rule of [null, 'keys', 7]) {
      const filter = [{ filter_key: 'keys', filter_value: 'math' }, rule];
      expect(filterDescriptionProblem({ filter: filter as never[], include_exclude: false }), JSON.stringify(rule)).to.equal('filter[1] is not an object with filter_key and filter_value');
      expect(passes(filter, false), JSON.stringify(rule)).to.equal(false);
    }
  });

  it('clips a long pattern and its message', () => {
    const problem = filterDescriptionProblem({ filter: [{ filter_key: 'keys', filter_value: `(${'a'.repeat(100000)}` }] }) ?? '';
    expect(problem).to.match(/^filter\[0\]\.filter_value "\(a+… \(100003 characters\) is not a regular expression the filter can compile \(.+\)$/);
    expect(problem.length).to.be.below(600);
  });

  it('says nothing of a description the function applies, or does not apply at all', () => {
    expect(filterDescriptionProblem({ filter: [{ filter_key: 'keys', filter_value: 'math' }] })).to.equal(undefined);
    expect(filterDescriptionProblem({ active: false, filter: [null] as never[] })).to.equal(undefined);
    expect(filterDescriptionProblem(undefined)).to.equal(undefined);
  });
});
