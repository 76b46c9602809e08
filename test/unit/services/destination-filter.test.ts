/**
 * Which destination filter a source applies (destination-info.ts activeFilter, spec "Distribution"
 * source step 5 and the filter description's `active`): an inactive filter, or one with no rules,
 * filters nothing, so a pattern in it that does not compile is no reason to fail the destination
 * (destination-checks.ts checks only the filter it will apply). A mutation audit found no test of it.
 */
import { expect } from 'chai';
import { activeFilter } from '../../../src/services/distribute/destination-info.js';
import { filterDescriptionProblem } from '../../../src/domain/filters.js';

const broken = [{ filter_key: 'keys', filter_value: '(' }];

describe('the destination filter a source applies', () => {
  it('none when the description is inactive, even with a pattern that does not compile', () => {
    const inactive = { active: false, include_exclude: false, filter: broken };
    expect(activeFilter(inactive)).to.equal(undefined);
    expect(filterDescriptionProblem(activeFilter(inactive))).to.equal(undefined);
  });

  it('none when it is absent or has no rules', () => {
    expect(activeFilter(undefined)).to.equal(undefined);
    expect(activeFilter({ active: true, include_exclude: true, filter: [] })).to.equal(undefined);
    expect(activeFilter({ active: true, include_exclude: true })).to.equal(undefined);
  });

  it('an active one with rules, whose pattern that does not compile is then a problem', () => {
    const active = { active: true, include_exclude: false, filter: broken };
    expect(activeFilter(active)).to.equal(active);
    expect(filterDescriptionProblem(activeFilter(active))).to.match(/filter\[0\]\.filter_value "\(" is not a regular expression/);
    const unstated = { include_exclude: true, filter: [{ filter_key: 'keys', filter_value: 'x' }] };
    expect(activeFilter(unstated), 'active unless it says false').to.equal(unstated);
  });
});
