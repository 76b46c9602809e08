/** The distribution filter function (also the node filter at publish), in a node:vm sandbox. */
import { expect } from 'chai';
import { filterFunction } from '../support/sandbox.js';
import { fixture, type Doc } from '../support/documents.js';

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
  it('an inactive or custom filter passes everything; an invalid pattern matches nothing', () => {
    expect(filter({ ...doc, keys: [] }, { filter_description: JSON.stringify({ ...example, active: false }) })).to.equal(true);
    expect(filter({ ...doc, keys: [] }, { filter_description: JSON.stringify({ ...example, custom_filter: true }) })).to.equal(true);
    expect(filter(doc, { filter_description: JSON.stringify({ include_exclude: true, filter: [{ filter_key: '(', filter_value: 'x' }] }) })).to.equal(false);
  });
  it('never selects by the node-private owner field (issue 13, item 1)', () => {
    const byOwner = { active: true, include_exclude: true, filter: [{ filter_key: 'node_publisher_account', filter_value: 'alice' }] };
    expect(filter({ ...doc, node_publisher_account: 'alice' }, { filter_description: byOwner })).to.equal(false);
    expect(filter({ ...doc, node_publisher_account: 'alice' }, { filter_description: { ...byOwner, include_exclude: false } })).to.equal(true);
  });
});
