/**
 * The embedded store answers JSON uncompressed whatever the request's Accept-Encoding, as Apache
 * CouchDB 3.x does (src/embedded/child.ts leaves express-pouchdb's `compression` module out):
 * between the node and its store on loopback, gzip only cost CPU on both sides. On CouchDB
 * (TEST_COUCHDB_URL) the same request is made to the reference server as well.
 */
import http from 'node:http';
import { expect } from 'chai';
import { startBareStore, type BareStore } from '../support/bare-store.js';
import { testCouchAdmin } from '../support/store.js';

interface RawAnswer { status: number; encoding: string | undefined; body: Buffer }

/** A GET asking for gzip, read as bytes (fetch would inflate it and hide the encoding). */
function getAskingGzip(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { ...headers, 'accept-encoding': 'gzip, deflate' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** 50 documents of about 2 KB: an `_all_docs` answer far above any compression threshold. */
const documents = Array.from({ length: 50 }, (_, i) => ({ _id: `doc-${i}`, text: 'compressible '.repeat(150) }));

describe('the embedded store answers uncompressed, as CouchDB 3.x', function () {
  this.timeout(60000);
  let store: BareStore;

  before(async () => {
    store = await startBareStore('uncompressed');
    expect((await store.call('PUT', '/plain')).status).to.equal(201);
    expect((await store.call('POST', '/plain/_bulk_docs', { docs: documents })).status).to.equal(201);
  });
  after(async () => store.stop());

  it('sends a large JSON answer without Content-Encoding to a client that accepts gzip', async () => {
    const answer = await getAskingGzip(`${store.url}/plain/_all_docs?include_docs=true`, { authorization: store.authorization });
    expect(answer.status).to.equal(200);
    expect(answer.encoding).to.equal(undefined);
    expect((JSON.parse(answer.body.toString('utf8')) as { rows: unknown[] }).rows).to.have.length(50);
  });

  // express-pouchdb's `disk-size` module walked the database's folder for every info request
  // (the index warmer's four a second); child.ts leaves it out. CouchDB 3.x has no disk_size.
  it('answers database info without walking the store\'s folder for a disk_size, as CouchDB 3.x', async () => {
    const info = (await store.call('GET', '/plain')).body;
    expect(info).to.include({ doc_count: 50, db_name: 'plain' });
    expect(info).to.not.have.property('disk_size');
  });

  const admin = testCouchAdmin();
  (admin ? it : it.skip)('as the reference CouchDB does with the same request', async () => {
    const { root, headers: auth } = admin as NonNullable<typeof admin>;
    const name = `uncompressed_${Date.now().toString(36)}`;
    const headers = { ...auth, 'content-type': 'application/json' };
    await fetch(`${root}/${name}`, { method: 'PUT', headers });
    try {
      await fetch(`${root}/${name}/_bulk_docs`, { method: 'POST', headers, body: JSON.stringify({ docs: documents }) });
      const answer = await getAskingGzip(`${root}/${name}/_all_docs?include_docs=true`, auth);
      expect(answer.status).to.equal(200);
      expect(answer.encoding).to.equal(undefined);
    } finally {
      await fetch(`${root}/${name}`, { method: 'DELETE', headers });
    }
  });
});
