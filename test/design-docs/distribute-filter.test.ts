/** The distribution filter function (also the node filter at publish), in a node:vm sandbox. */
import { expect } from 'chai';
import { filterFunction } from '../support/sandbox.js';
import { fixture, type Doc } from '../support/documents.js';
import { NODE_PRIVATE_FIELDS } from '../../src/domain/node-private-fields.js';

describe('design-docs/resource_data/distribute/filters/live_for_destination', () => {
  const filter = filterFunction('resource_data/distribute/filters/live_for_destination.js');
  const doc: Doc = { _id: 'a', doc_type: 'resource_data', active: true, keys: ['Filter Me In', 'Math'], identity: { submitter: 'NSDL' } };
  const example = fixture<Doc>('node-config/filter-description-example.json');

  it('passes live resource data with no filter', () => {
    expect(filter(doc, {})).to.equal(true);
  });
  it('never passes tombstones, do_not_distribute, marked or non-resource documents', () => {
    expect(filter({ ...doc, doc_type: 'tombstone' }, {})).to.equal(false);
    expect(filter({ ...doc, do_not_distribute: 'x' }, {})).to.equal(false);
    expect(filter({ ...doc, node_deleted: 'x' }, {})).to.equal(false);
    expect(filter({ _id: '_design/x' }, {})).to.equal(false);
  });
  it('passes a tombstone that keeps the replacement it superseded, a destination\'s filter applied to that replacement', () => {
    const relay = { _id: 'a', doc_type: 'tombstone', do_not_distribute: true, keys: ['Tombstone'], superseded_replacement: { ...doc, keys: ['Relayed'] } };
    expect(filter(relay, {})).to.equal(true);
    const byKey = (value: string): Doc => ({ filter_description: { active: true, include_exclude: true, filter: [{ filter_key: 'keys', filter_value: `^${value}$` }] } });
    expect(filter(relay, byKey('Relayed'))).to.equal(true);
    expect(filter(relay, byKey('Tombstone'))).to.equal(false);
    // Kept as something other than an object, it is a tombstone like any other.
    for (const kept of [null, 'x', [doc]]) expect(filter({ ...relay, superseded_replacement: kept }, {}), JSON.stringify(kept)).to.equal(false);
  });
  it('include rules (the sample filter description): a matching key/value passes, others do not', () => {
    expect(filter(doc, { filter_description: JSON.stringify(example) })).to.equal(true);
    expect(filter({ ...doc, keys: ['Other'], active: false }, { filter_description: JSON.stringify(example) })).to.equal(false);
    // "True" in the sample matches the JSON boolean true, as the original node wrote it.
    expect(filter({ ...doc, keys: ['Other'] }, { filter_description: JSON.stringify(example) })).to.equal(true);
  });
  it('exclude rules invert the match', () => {
    const exclude = { ...example, include_exclude: false };
    expect(filter(doc, { filter_description: JSON.stringify(exclude) })).to.equal(false);
    expect(filter({ ...doc, keys: ['Other'], active: false }, { filter_description: JSON.stringify(exclude) })).to.equal(true);
  });
  it('matches nested keys by name or dotted path, and accepts a pre-parsed filter object', () => {
    const bySubmitter = { active: true, include_exclude: true, filter: [{ filter_key: 'identity.submitter', filter_value: '^NSDL$' }] };
    expect(filter(doc, { filter_description: bySubmitter })).to.equal(true);
    expect(filter({ ...doc, identity: { submitter: 'Other' } }, { filter_description: bySubmitter })).to.equal(false);
  });
  it('an inactive or custom filter passes everything', () => {
    // A document the sample's rules do not pass (neither its keys nor `active` match), so only the flags can pass it.
    const unmatched = { ...doc, keys: [], active: false };
    expect(filter(unmatched, { filter_description: JSON.stringify(example) })).to.equal(false);
    expect(filter(unmatched, { filter_description: JSON.stringify({ ...example, active: false }) })).to.equal(true);
    expect(filter(unmatched, { filter_description: JSON.stringify({ ...example, custom_filter: true }) })).to.equal(true);
  });
  it('a document matching any one rule matches, the first as well as the last, in any element of an array', () => {
    // Only the sample's first rule (keys) matches; only its last (active) matches.
    expect(filter({ ...doc, active: false }, { filter_description: JSON.stringify(example) })).to.equal(true);
    expect(filter({ ...doc, active: false }, { filter_description: JSON.stringify({ ...example, include_exclude: false }) })).to.equal(false);
    expect(filter({ ...doc, keys: ['Other'] }, { filter_description: JSON.stringify({ ...example, include_exclude: false }) })).to.equal(false);
    // 'Math' is the second element of keys.
    const byMath = { active: true, include_exclude: true, filter: [{ filter_key: 'keys', filter_value: '^Math$' }] };
    expect(filter(doc, { filter_description: byMath })).to.equal(true);
    expect(filter({ ...doc, keys: ['Other', 'Science'] }, { filter_description: byMath })).to.equal(false);
  });
  it('a description without include_exclude includes, as the node configuration\'s default (node-config.schema.ts)', () => {
    const { include_exclude: _direction, ...undirected } = example;
    void _direction;
    expect(filter(doc, { filter_description: JSON.stringify(undirected) })).to.equal(true);
    expect(filter({ ...doc, keys: ['Other'], active: false }, { filter_description: JSON.stringify(undirected) })).to.equal(false);
  });
  it('a rule that is no object passes no document, including or excluding, beside a matching rule too', () => {
    const matching = { filter_key: 'keys', filter_value: '^Math$' };
    for (const bad of [null, 'keys', 42]) {
      for (const include_exclude of [true, false]) {
        for (const rules of [[bad], [matching, bad], [bad, matching]]) {
          const description = { active: true, include_exclude, filter: rules };
          expect(filter(doc, { filter_description: JSON.stringify(description) }), JSON.stringify(description)).to.equal(false);
          expect(filter({ ...doc, keys: ['Other'] }, { filter_description: JSON.stringify(description) }), JSON.stringify(description)).to.equal(false);
        }
      }
    }
  });
  // A pattern the filter cannot compile was taken for one matching nothing: an excluding filter
  // then passed every document. A filter that cannot be evaluated passes none (spec: only
  // documents that pass the active filters are stored), whichever its direction and rule order.
  it('a pattern that does not compile passes no document, including or excluding, wherever it stands', () => {
    const broken = [
      { filter_key: '(', filter_value: 'x' },
      { filter_key: 'keys', filter_value: '(' },
      { filter_key: 'identity.[', filter_value: null },
    ];
    const matching = { filter_key: 'keys', filter_value: '^Math$' };
    for (const rule of broken) {
      for (const include_exclude of [true, false]) {
        for (const rules of [[rule], [matching, rule], [rule, matching]]) {
          const description = { active: true, include_exclude, filter: rules };
          for (const candidate of [doc, { ...doc, keys: ['Other'] }]) {
            expect(filter(candidate, { filter_description: JSON.stringify(description) }), JSON.stringify({ description, keys: candidate.keys })).to.equal(false);
          }
        }
      }
    }
    // The same rules with the pattern corrected filter again.
    expect(filter({ ...doc, keys: ['Other'] }, { filter_description: JSON.stringify({ active: true, include_exclude: false, filter: [{ filter_key: 'keys', filter_value: '\\(' }] }) })).to.equal(true);
  });
  it('never selects by the node-private owner field (issue 13, item 1)', () => {
    const byOwner = { active: true, include_exclude: true, filter: [{ filter_key: 'node_publisher_account', filter_value: 'alice' }] };
    expect(filter({ ...doc, node_publisher_account: 'alice' }, { filter_description: byOwner })).to.equal(false);
    expect(filter({ ...doc, node_publisher_account: 'alice' }, { filter_description: { ...byOwner, include_exclude: false } })).to.equal(true);
  });
  it('never selects by any node-private field (src/domain/node-private-fields.ts), nor by a path inside one', () => {
    for (const field of NODE_PRIVATE_FIELDS) {
      const stored = { ...doc, [field]: { rules: 1, sha256: 'abc' } };
      for (const filterKey of [field, `${field}\\.sha256`, 'sha256', 'node_.*']) {
        const rule = { active: true, include_exclude: true, filter: [{ filter_key: filterKey, filter_value: 'abc|^1$' }] };
        expect(filter(stored, { filter_description: rule }), `${field}: ${filterKey}`).to.equal(false);
        expect(filter(stored, { filter_description: { ...rule, include_exclude: false } }), `${field}: ${filterKey}`).to.equal(true);
      }
    }
  });
});
