/**
 * Two updates of one doc_ID racing (spec "States and transitions": an unsigned original is
 * replaced in total by its submitter): the one written second met the first as a conflict and
 * was decided again, but kept the timestamps taken when its request began, so the stored version
 * could carry an earlier update_timestamp and node_timestamp than the version it replaced (an
 * audit: 11 of 20 races across two node processes, 4 of 20 in one). A peer holding the first
 * then took the second for an older copy, and an incremental harvester never saw it. Each new
 * version must be stamped after the one before.
 * Runs on the suite's store: CouchDB with TEST_COUCHDB_URL, embedded otherwise.
 *
 * The store itself is the witness: a validate_doc_update the test adds refuses any version of a
 * race document stamped no later than the one it replaces (both stores run it on every write, and
 * the node answers its refusal as a failed document). Reading the replaced revision afterwards
 * would not do: both stores drop old revision bodies when they compact (the embedded store at
 * each write, src/embedded/compaction.ts).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { startProxiedNode, type ProxiedNode } from '../support/store-proxy.js';

/** ES5 for the store. The node's timestamps have one fixed width (six fractional digits), so text order is time order. */
const STAMPED_AFTER = `function (newDoc, oldDoc) {
  if (!oldDoc || newDoc._deleted || String(newDoc._id).indexOf('urn:race:') !== 0) return;
  // A write whose parent is not the current revision is a conflict: CouchDB answers it so
  // without calling this function; the embedded store calls it first (oldDoc: the current
  // version; newDoc._rev: the parent the write names) and then answers conflict (docs/couchdb.md).
  if (newDoc._rev !== oldDoc._rev) return;
  var fields = ['update_timestamp', 'node_timestamp'];
  for (var i = 0; i < fields.length; i++) {
    var field = fields[i];
    if (!(newDoc[field] > oldDoc[field])) throw { forbidden: newDoc._id + ' ' + field + ': ' + oldDoc[field] + ' then ' + newDoc[field] };
  }
}`;
const FIXED_WIDTH = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const AUTH = { authorization: basicAuth('racer', 'racer-password-1') };

describe('racing updates of one doc_ID', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'racer', 'racer-password-1');
  });
  after(async () => node.stop());

  it('stamp each stored version after the version it replaced', async () => {
    const [base] = nsdlDocs(1);
    const db = node.couch.use<Record<string, unknown>>(node.names.resourceData);
    await db.insert({ _id: '_design/test-stamped-after', validate_doc_update: STAMPED_AFTER } as never);
    for (let race = 0; race < 12; race += 1) {
      const docId = `urn:race:${race}`;
      const version = (keys: string[]): Record<string, unknown> => ({ ...base, doc_ID: docId, keys, resource_locator: `http://example.org/race/${race}` });
      expect((await postJson(`${node.url}/publish`, { documents: [version(['v0'])] }, AUTH)).body.OK).to.equal(true);
      const answers = await Promise.all([['a'], ['b']].map((keys) => postJson(`${node.url}/publish`, { documents: [version(keys)] }, AUTH)));
      // A version stamped before the one it met is refused by the store, so this fails with its reason.
      for (const answer of answers) expect((answer.body.document_results as { OK: boolean }[])[0]?.OK, JSON.stringify(answer.body)).to.equal(true);
      const stored = await db.get(docId, { revs_info: true }) as Record<string, unknown> & { _revs_info: unknown[] };
      expect(stored._revs_info, 'three versions stored').to.have.length(3);
      for (const field of ['update_timestamp', 'node_timestamp']) expect(stored[field]).to.match(FIXED_WIDTH);
    }
  });
});

describe('racing updates of one doc_ID, the order staged', function () {
  this.timeout(120000);
  let proxied: ProxiedNode;
  before(async () => {
    proxied = await startProxiedNode({ INDEX_WARMING: 'off' });
    await addAccount(proxied.node, 'racer', 'racer-password-1');
  });
  after(async () => proxied?.stop());

  // The case the random races above meet only sometimes: the request that began first (the
  // earlier clock) writes second, its write held by a proxy in front of the store while the later
  // request's write lands. Its write then meets a conflict, and its version, decided again, must
  // be stamped after the one stored meanwhile.
  it('a request that began first but writes second is stamped after the version written meanwhile', async () => {
    const { node, proxy } = proxied;
    const [base] = nsdlDocs(1);
    const db = node.couch.use<Record<string, unknown>>(node.names.resourceData);
    await db.insert({ _id: '_design/test-stamped-after', validate_doc_update: STAMPED_AFTER } as never);
    for (let race = 0; race < 3; race += 1) {
      const docId = `urn:race:staged-${race}`;
      const version = (keys: string[]): Record<string, unknown> => ({ ...base, doc_ID: docId, keys, resource_locator: `http://example.org/race/staged-${race}` });
      expect((await postJson(`${node.url}/publish`, { documents: [version(['v0'])] }, AUTH)).body.OK).to.equal(true);
      let held = false;
      proxy.slow(400, (method, path) => {
        if (held || method !== 'POST' || !path.endsWith('/_bulk_docs')) return false;
        held = true;
        return true;
      });
      const first = postJson(`${node.url}/publish`, { documents: [version(['first'])] }, AUTH);
      while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await postJson(`${node.url}/publish`, { documents: [version(['second'])] }, AUTH);
      const answers = [await first, second];
      proxy.slow(0, () => false);
      for (const answer of answers) expect((answer.body.document_results as { OK: boolean }[])[0]?.OK, JSON.stringify(answer.body)).to.equal(true);
      const stored = await db.get(docId) as Record<string, unknown>;
      expect(stored.keys, 'the first request\'s version, written last').to.deep.equal(['first']);
    }
  });
});
