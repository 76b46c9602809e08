/**
 * The proof that lets a range read answer from an index that has not yet seen the latest changes
 * (src/storage/current-reads.ts), and the order of view keys it relies on (view-collation.ts).
 * The keys and documents are the node's own: the map functions are the design-doc files.
 */
import path from 'node:path';
import { expect } from 'chai';
import { compareKeys } from '../../../src/storage/view-collation.js';
import { unaffectedByBacklog } from '../../../src/storage/current-reads.js';
import { ViewMaps } from '../../../src/storage/view-maps.js';
import { loadDesignDocs } from '../../../src/storage/design-docs.js';
import { ROOT } from '../../support/process.js';

/** A change as `_changes?include_docs=true` reports it; its keys come from the view's own map function. */
interface Change { id: string; deleted?: boolean; doc?: Record<string, unknown> }
type KeysOf = (doc: Record<string, unknown>) => unknown[] | undefined;

function stands(params: Parameters<typeof unaffectedByBacklog>[0], rows: { id: string; key: unknown }[], backlog: Change[], keysOf: KeysOf): boolean {
  return unaffectedByBacklog(params, rows, backlog.map((change) => ({ id: change.id, deleted: change.deleted, keys: change.deleted || !change.doc ? [] : keysOf(change.doc) })));
}

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
  const rowsOf = (docs: Record<string, unknown>[]) => docs.map((doc) => ({ id: doc._id as string, key: [doc.node_timestamp, doc._id] }));
  const keysOf = (ddoc: string, view: string) => (doc: Record<string, unknown>) => maps.keysOf(ddoc, view, doc);
  const harvest = keysOf('harvest', 'by_node_timestamp');
  const change = (doc: Record<string, unknown>): Change => ({ id: doc._id as string, doc });

  it('stands when every change not yet indexed sorts after the full page', () => {
    const params = { startkey: ['2026-10-01'], endkey: ['2026-12-01', {}], limit: 3 };
    const backlog = [change(resource('new', '2026-11-25T00:00:00.000Z'))];
    expect(stands(params, rowsOf(older), backlog, harvest)).to.equal(true);
  });

  it('is read again when a change falls inside the page, or inside the range of a page that is not full', () => {
    const inside = [change(resource('mid', '2026-11-02T12:00:00.000Z'))];
    expect(stands({ startkey: ['2026-10-01'], limit: 3 }, rowsOf(older), inside, harvest)).to.equal(false);
    const after = [change(resource('new', '2026-11-25T00:00:00.000Z'))];
    expect(stands({ startkey: ['2026-10-01'], endkey: ['2026-12-01', {}], limit: 10 }, rowsOf(older), after, harvest)).to.equal(false);
    // ...but not when the range ends before the change.
    expect(stands({ startkey: ['2026-10-01'], endkey: ['2026-11-20', {}], limit: 10 }, rowsOf(older), after, harvest)).to.equal(true);
  });

  it('is read again when a row of the page changed or was deleted, wherever its new key is', () => {
    const moved = [change(resource('b', '2026-11-30T00:00:00.000Z'))];
    expect(stands({ startkey: ['2026-10-01'], limit: 3 }, rowsOf(older), moved, harvest)).to.equal(false);
    const deleted: Change[] = [{ id: 'a', deleted: true, doc: { _id: 'a', _rev: '2-b', _deleted: true } }];
    expect(stands({ startkey: ['2026-10-01'], limit: 3 }, rowsOf(older), deleted, harvest)).to.equal(false);
    const deletedElsewhere: Change[] = [{ id: 'zz', deleted: true, doc: { _id: 'zz', _rev: '2-b', _deleted: true } }];
    expect(stands({ startkey: ['2026-10-01'], limit: 3 }, rowsOf(older), deletedElsewhere, harvest)).to.equal(true);
  });

  it('reads descending pages (obtain, newest first) from the start key down to the last row', () => {
    const newest = [...older].reverse();
    const backlog = [change(resource('new', '2026-11-25T00:00:00.000Z'))];
    // Page 1 of "newest first" has no start key: a new document belongs in it.
    expect(stands({ descending: true, limit: 3 }, rowsOf(newest), backlog, keysOf('obtain', 'by_node_timestamp'))).to.equal(false);
    // A later page starts below the new document.
    expect(stands({ descending: true, startkey: ['2026-11-10T00:00:00.000Z', 'x'], limit: 3 }, rowsOf(newest), backlog, keysOf('obtain', 'by_node_timestamp'))).to.equal(true);
  });

  it('keeps to one tag of a slice even where the order of two tags cannot be known', () => {
    const sliceKeys = keysOf('slice', 'by_tag');
    const params = { startkey: ['kindergarten', '2026-01-01'], endkey: ['kindergarten', '2027-01-01'], limit: 50 };
    const otherTag = [change(resource('n1', '2026-11-25T00:00:00.000Z', { keys: ['K-12'] }))];
    expect(stands(params, [], otherTag, sliceKeys)).to.equal(true);
    const sameTag = [change(resource('n2', '2026-11-25T00:00:00.000Z', { keys: [' Kindergarten '] }))];
    expect(stands(params, [], sameTag, sliceKeys)).to.equal(false);
    // Not printable ASCII, and not known apart: read again.
    const accented = [change(resource('n3', '2026-11-25T00:00:00.000Z', { keys: ['kindergarten\u0301'] }))];
    expect(stands(params, [], accented, sliceKeys)).to.equal(false);
  });

  it('takes documents the views do not index as no change, and an unknown view as a reason to read again', () => {
    const params = { startkey: ['2026-10-01'], limit: 3 };
    const tombstoneless = [change({ _id: 'cfg', _rev: '1-a', doc_type: 'something_else' })];
    expect(stands(params, rowsOf(older), tombstoneless, harvest)).to.equal(true);
    expect(stands(params, rowsOf(older), [change(resource('n', '2026-11-25T00:00:00.000Z'))], keysOf('harvest', 'no_such_view'))).to.equal(false);
  });
});
