/**
 * The rebuild that lets a range read answer from an index that has not yet seen the latest changes
 * (src/storage/current-reads.ts), and the order of view keys it relies on (view-collation.ts).
 * The keys and documents are the node's own: the map functions are the design-doc files.
 */
import path from 'node:path';
import { expect } from 'chai';
import { compareKeys } from '../../../src/storage/view-collation.js';
import { currentRows, type IndexRow } from '../../../src/storage/current-reads.js';
import { ViewMaps } from '../../../src/storage/view-maps.js';
import { loadDesignDocs } from '../../../src/storage/design-docs.js';
import { ROOT } from '../../support/process.js';
import { codeUnitKey as key } from '../../../src/storage/view-keys.js';

const maps = new ViewMaps(loadDesignDocs(path.join(ROOT, 'design-docs')), 'resource_data');

function resource(id: string, ts: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { _id: id, _rev: '1-a', doc_type: 'resource_data', doc_ID: id, node_timestamp: ts, resource_locator: `http://example.org/${id}`, payload_placement: 'inline', payload_schema: ['nsdl_dc'], keys: ['Science'], identity: { submitter: 'Alice' }, ...extra };
}

describe('view keys compared without ICU (view-collation)', () => {
  it('orders by type as CouchDB does, and fixed-format timestamps and hex ids as strings', () => {
    expect(compareKeys(null, false)).to.equal(-1);
    expect(compareKeys(true, 1)).to.equal(-1);
    expect(compareKeys(99, 'a')).to.equal(-1);
    expect(compareKeys('z', ['a'])).to.equal(-1);
    expect(compareKeys(['a'], {})).to.equal(-1);
    expect(compareKeys('2026-11-25T10:00:00.000Z', '2026-11-25T09:59:59.999Z')).to.equal(1);
    expect(compareKeys('2026-11-25', '2026-11-25T00:00:00.000Z')).to.equal(-1);
    expect(compareKeys(['2026-11-25T10:00:00.000Z', '00410042'], ['2026-11-25T10:00:00.000Z', '0041004a'])).to.equal(-1);
    expect(compareKeys(['science'], ['science', '2026'])).to.equal(-1);
    expect(compareKeys([], [])).to.equal(0);
  });

  it('answers undefined where ICU and code point order may disagree', () => {
    expect(compareKeys('a', 'B')).to.equal(undefined); // ICU: a < B; code points: B < a
    expect(compareKeys('ab', 'Ac')).to.equal(undefined); // a case difference yields to b < c in ICU
    expect(compareKeys('12:00', '1200')).to.equal(undefined); // ':' sorts before digits in ICU, after them in code points
    expect(compareKeys('abc', 'abc\u0001')).to.equal(undefined); // a control character is ignorable in ICU
    expect(compareKeys('caf\u00e9', 'cafe\u0301')).to.equal(undefined); // canonically equivalent
    expect(compareKeys({ a: 1 }, {})).to.equal(undefined);
  });
});

describe('a page read from an index behind the database (current-reads)', () => {
  const older = [resource('a', '2026-11-01T00:00:00.000Z'), resource('b', '2026-11-02T00:00:00.000Z'), resource('c', '2026-11-03T00:00:00.000Z')];
  /** The index rows of `docs` in `ddoc/view`, in the view's order as given. */
  const indexRows = (docs: Record<string, unknown>[], ddoc = 'harvest', view = 'by_node_timestamp'): IndexRow[] =>
    docs.flatMap((doc) => (maps.rowsOf(ddoc, view, doc) ?? []).map((row) => ({ id: doc._id as string, ...row })));
  /** A backlog entry: the document's rows in the view, [] when deleted. */
  const change = (doc: Record<string, unknown>, ddoc = 'harvest', view = 'by_node_timestamp') => ({ id: doc._id as string, rows: doc._deleted ? [] : maps.rowsOf(ddoc, view, doc) });
  const ids = (result: ReturnType<typeof currentRows>): string[] | undefined => result?.rows.map((row) => row.id);

  it('keeps a full page when every change sorts after it', () => {
    const params = { startkey: ['2026-10-01'], endkey: ['2026-12-01', {}], limit: 3 };
    const result = currentRows(params, indexRows(older), [change(resource('new', '2026-11-25T00:00:00.000Z'))]);
    expect(ids(result)).to.deep.equal(['a', 'b', 'c']);
    expect(result?.added).to.deep.equal([]);
  });

  it('places a new document inside the range where the view would, with its emitted value', () => {
    const inside = resource('mid', '2026-11-02T12:00:00.000Z');
    expect(ids(currentRows({ startkey: ['2026-10-01'], limit: 3 }, indexRows(older), [change(inside)]))).to.deep.equal(['a', 'b', 'mid']);
    const open = currentRows({ startkey: ['2026-10-01'], endkey: ['2026-12-01', {}], limit: 10 }, indexRows(older), [change(resource('new', '2026-11-25T00:00:00.000Z', { node_deleted: true }))]);
    expect(ids(open)).to.deep.equal(['a', 'b', 'c', 'new']);
    expect(open?.added).to.deep.equal([{ id: 'new', key: ['2026-11-25T00:00:00.000Z', key('new')], value: 1 }]);
    // ...but not past the end of the range.
    expect(ids(currentRows({ startkey: ['2026-10-01'], endkey: ['2026-11-20', {}], limit: 10 }, indexRows(older), [change(resource('new', '2026-11-25T00:00:00.000Z'))]))).to.deep.equal(['a', 'b', 'c']);
  });

  it('moves or drops a row whose document changed, and gives up where rows beyond a full page could be needed', () => {
    const moved = change(resource('b', '2026-11-30T00:00:00.000Z'));
    expect(ids(currentRows({ startkey: ['2026-10-01'], limit: 5 }, indexRows(older), [moved]))).to.deep.equal(['a', 'c', 'b']);
    expect(currentRows({ startkey: ['2026-10-01'], limit: 3 }, indexRows(older), [moved])).to.equal(undefined);
    const deleted = change({ _id: 'a', _rev: '2-b', _deleted: true });
    expect(ids(currentRows({ startkey: ['2026-10-01'], limit: 5 }, indexRows(older), [deleted]))).to.deep.equal(['b', 'c']);
    const deletedElsewhere = change({ _id: 'zz', _rev: '2-b', _deleted: true });
    expect(ids(currentRows({ startkey: ['2026-10-01'], limit: 3 }, indexRows(older), [deletedElsewhere]))).to.deep.equal(['a', 'b', 'c']);
  });

  it('reads descending pages (obtain reads the harvest view newest first): a new document heads page 1 and stays out of later pages', () => {
    const newest = indexRows([...older].reverse(), 'harvest', 'by_node_timestamp');
    const backlog = [change(resource('new', '2026-11-25T00:00:00.000Z'), 'harvest', 'by_node_timestamp')];
    expect(ids(currentRows({ descending: true, limit: 3 }, newest, backlog))).to.deep.equal(['new', 'c', 'b']);
    expect(ids(currentRows({ descending: true, startkey: ['2026-11-10T00:00:00.000Z', key('x')], limit: 3 }, newest, backlog))).to.deep.equal(['c', 'b', 'a']);
  });

  it('keeps to one tag of a slice, its variants of other code units included (the keys are code units: view-keys.ts)', () => {
    const params = { startkey: [key('kindergarten'), '2026-01-01'], endkey: [key('kindergarten'), '2027-01-01'], inclusive_end: false, limit: 50 };
    const otherTag = change(resource('n1', '2026-11-25T00:00:00.000Z', { keys: ['K-12'] }), 'slice', 'by_tag');
    expect(ids(currentRows(params, [], [otherTag]))).to.deep.equal([]);
    const sameTag = change(resource('n2', '2026-11-25T00:00:00.000Z', { keys: [' Kindergarten '] }), 'slice', 'by_tag');
    expect(ids(currentRows(params, [], [sameTag]))).to.deep.equal(['n2']);
    // Another tag for both stores, and certainly so: its key's code units differ.
    const accented = change(resource('n3', '2026-11-25T00:00:00.000Z', { keys: ['kindergarten\u0301'] }), 'slice', 'by_tag');
    expect(ids(currentRows(params, [], [accented]))).to.deep.equal([]);
  });

  it('takes documents the view does not index as no change, and rows it cannot know as a reason to read again', () => {
    const params = { startkey: ['2026-10-01'], limit: 3 };
    expect(ids(currentRows(params, indexRows(older), [change({ _id: 'cfg', _rev: '1-a', doc_type: 'something_else' })]))).to.deep.equal(['a', 'b', 'c']);
    expect(currentRows(params, indexRows(older), [{ id: 'n', rows: undefined }])).to.equal(undefined);
    // The same key as the page's last row, from another document: its place among them is CouchDB's (by doc id).
    expect(currentRows(params, indexRows(older), [{ id: 'n', rows: [{ key: ['2026-11-03T00:00:00.000Z', key('c')], value: 0 }] }])).to.equal(undefined);
  });
});
