/**
 * Requests that used to kill the embedded store (express-pouchdb 5.0.1-rc1.0 over PouchDB 9,
 * see patches/) must be answered with a well-formed CouchDB-style HTTP answer, and the child
 * must survive them: after each request the server still answers `GET /` from the SAME child
 * process and the supervisor has not restarted it.
 *
 * Expected answers follow Apache CouchDB 3 where it gives one (e.g. 404 not_found for a
 * missing filter design doc, 200 for `filter=_design` and `filter=_selector`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import pino from 'pino';
import { EmbeddedCouch } from '../../src/embedded/supervisor.js';

const USER = 'matrix-admin';
const PASSWORD = 'matrix-secret-password';
const ADMIN_AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const DB = 'crash-matrix';
/** Time given to an asynchronous crash (after the answer was sent) to happen. */
const SETTLE_MS = 400;

interface Answer {
  status: number;
  contentType: string;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Authorization header; admin Basic credentials unless set ('' sends none). */
  auth?: string;
  timeoutMs?: number;
}

let couch: EmbeddedCouch;
let baseUrl = '';
let dataDir = '';
let firstPid: number | undefined;
let pidBefore: number | undefined;
let restartsBefore = 0;

async function request(method: string, urlPath: string, options: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const auth = options.auth ?? ADMIN_AUTH;
  if (auth) headers.authorization = auth;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (Buffer.isBuffer(options.body)) {
    body = new Uint8Array(options.body);
  } else if (typeof options.body === 'string') {
    body = options.body;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + urlPath, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 15000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, body: parsed };
}

/** Admin URL of a database on the embedded store, with credentials (for replication). */
function dbUrl(name: string, withCredentials = true): string {
  const url = new URL(`/${encodeURIComponent(name)}`, baseUrl);
  if (withCredentials) {
    url.username = USER;
    url.password = PASSWORD;
  }
  return url.toString();
}

/** A CouchDB-style JSON error answer: given status, `error` (and `reason`) strings. */
function expectCouchError(answer: Answer, statuses: number[], error?: string): void {
  expect(statuses, `status of ${answer.text}`).to.include(answer.status);
  expect(answer.contentType).to.match(/^application\/json/);
  expect(answer.body, answer.text).to.be.an('object');
  expect(answer.body.error, answer.text).to.be.a('string');
  if (error) expect(answer.body.error, answer.text).to.equal(error);
}

/** The child survived: same pid as before the test, no restart, and it still answers `GET /`. */
async function expectStillRunning(): Promise<void> {
  await delay(SETTLE_MS);
  const root = await request('GET', '/');
  expect(root.status, root.text).to.equal(200);
  expect(root.body).to.have.property('version');
  expect(couch.pid, 'child pid (a new pid means it crashed and was restarted)').to.equal(pidBefore);
  expect(couch.restartCount, 'supervisor restartCount').to.equal(restartsBefore);
}

/** Polls a _replicator document until its state is one of `states` (or the time runs out). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function waitForReplicationState(docId: string, states: string[], timeoutMs = 10000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await request('GET', `/_replicator/${encodeURIComponent(docId)}`);
    if (answer.status === 200 && states.includes(answer.body._replication_state)) return answer.body;
    if (Date.now() > deadline) throw new Error(`_replicator/${docId} never reached ${states.join('|')}: ${answer.text}`);
    await delay(100);
  }
}

async function allDocIds(db: string): Promise<string[]> {
  const answer = await request('GET', `/${encodeURIComponent(db)}/_all_docs`);
  expect(answer.status, answer.text).to.equal(200);
  return (answer.body.rows as { id: string }[]).map((row) => row.id);
}

describe('embedded store crash matrix (express-pouchdb error paths)', function () {
  this.timeout(60000);

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-crash-matrix-'));
    couch = new EmbeddedCouch({
      dataDir,
      user: USER,
      password: PASSWORD,
      logger: pino({ level: process.env.CRASH_MATRIX_LOG ?? 'silent' }),
    });
    await couch.start();
    baseUrl = couch.url;
    firstPid = couch.pid;

    expect((await request('PUT', `/${DB}`)).status).to.equal(201);
    const docs = [
      { _id: 'a', type: 'x' },
      { _id: 'b', type: 'y' },
      {
        _id: '_design/app',
        views: { byType: { map: 'function (doc) { if (doc.type) emit(doc.type, null); }' } },
        filters: { onlyX: 'function (doc) { return doc.type === "x"; }' },
      },
    ];
    const bulk = await request('POST', `/${DB}/_bulk_docs`, { body: { docs } });
    expect(bulk.status, bulk.text).to.equal(201);
  });

  beforeEach(() => {
    pidBefore = couch.pid;
    restartsBefore = couch.restartCount;
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    // A crashed child is restarted by the supervisor: wait for it so later cases still run.
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      await delay(200);
      try {
        if (couch.pid !== undefined && (await request('GET', '/', { timeoutMs: 1000 })).status === 200) return;
      } catch {
        // still restarting
      }
    }
  });

  after(async () => {
    await couch?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe('GET /{db}/_changes?filter=missing/ddoc', () => {
    it('answers 404 not_found for a filter in a missing design doc', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=missing/ddoc`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 404 not_found for a missing filter function in an existing design doc', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=app/missing`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 404 not_found for a missing filter ddoc in a longpoll feed', async () => {
      const answer = await request('GET', `/${DB}/_changes?feed=longpoll&filter=missing/ddoc`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 404 not_found for a missing filter ddoc in a continuous feed', async () => {
      const answer = await request('GET', `/${DB}/_changes?feed=continuous&filter=missing/ddoc&timeout=500`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });
  });

  describe('GET /{db}/_changes?filter=_view&view=ddoc/missing', () => {
    it('answers 404 not_found for a missing view in an existing design doc', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_view&view=app/missing`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 404 not_found for a view in a missing design doc', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_view&view=nodoc/missing`);
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 400 bad_request for filter=_view without a view parameter', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_view`);
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });

    it('still filters by an existing view', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_view&view=app/byType`);
      expect(answer.status, answer.text).to.equal(200);
      expect((answer.body.results as { id: string }[]).map((r) => r.id).sort()).to.deep.equal(['a', 'b']);
      await expectStillRunning();
    });
  });

  describe('GET /{db}/_changes?filter=_design', () => {
    it('answers 200 with the design documents only (as CouchDB 3 does)', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_design`);
      expect(answer.status, answer.text).to.equal(200);
      expect((answer.body.results as { id: string }[]).map((r) => r.id)).to.deep.equal(['_design/app']);
      await expectStillRunning();
    });
  });

  describe('POST /{db}/_changes?filter=_selector', () => {
    it('answers 200 with the documents matching the selector in the JSON body', async () => {
      const answer = await request('POST', `/${DB}/_changes?filter=_selector`, { body: { selector: { type: 'x' } } });
      expect(answer.status, answer.text).to.equal(200);
      expect((answer.body.results as { id: string }[]).map((r) => r.id)).to.deep.equal(['a']);
      await expectStillRunning();
    });

    it('answers 400 bad_request when the body has no selector', async () => {
      const answer = await request('POST', `/${DB}/_changes?filter=_selector`, { body: {} });
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });

    it('answers 400 bad_request for GET with filter=_selector and no selector', async () => {
      const answer = await request('GET', `/${DB}/_changes?filter=_selector`);
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });
  });

  describe('POST /_replicate with a filter in a missing design doc', () => {
    it('answers 404 not_found', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: DB, target: `${DB}-filtered`, create_target: true, filter: 'missing/ddoc' },
      });
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });

    it('answers 404 not_found for an http source too', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: dbUrl(DB), target: `${DB}-filtered-http`, create_target: true, filter: 'missing/ddoc' },
      });
      expectCouchError(answer, [404], 'not_found');
      await expectStillRunning();
    });
  });

  describe('PUT /_replicator/{docid} with a selector and an http source', () => {
    it('accepts the document and replicates only the selected documents', async () => {
      const target = `${DB}-selected`;
      const put = await request('PUT', '/_replicator/selector-http', {
        body: { source: dbUrl(DB), target: dbUrl(target), create_target: true, selector: { type: 'x' } },
      });
      expect(put.status, put.text).to.equal(201);
      const doc = await waitForReplicationState('selector-http', ['completed', 'error']);
      expect(doc._replication_state, JSON.stringify(doc)).to.equal('completed');
      expect(await allDocIds(target)).to.deep.equal(['a']);
      await expectStillRunning();
    });
  });

  describe('PUT /{db}/{docid} multipart/related (nano db.multipart.insert)', () => {
    it('stores the document with its attachment (201, as CouchDB 3 does)', async () => {
      const boundary = 'MatrixBoundary0123';
      const attachment = Buffer.from('hello attachment');
      const doc = {
        title: 'multipart',
        _attachments: { 'hello.txt': { follows: true, length: attachment.length, content_type: 'text/plain' } },
      };
      const json = JSON.stringify(doc);
      // Byte for byte what nano's MultiPartFactory produces.
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n`),
        Buffer.from(`--${boundary}\r\ncontent-type: text/plain\r\ncontent-length: ${attachment.length}\r\n\r\n`),
        attachment,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const answer = await request('PUT', `/${DB}/multipart-doc`, {
        body,
        headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ ok: true, id: 'multipart-doc' });
      const stored = await request('GET', `/${DB}/multipart-doc/hello.txt`, { headers: { accept: '*/*' } });
      expect(stored.status, stored.text).to.equal(200);
      expect(stored.text).to.equal('hello attachment');
      await expectStillRunning();
    });

    it('answers 400 bad_request for a multipart body whose first part is not JSON', async () => {
      const boundary = 'MatrixBoundary4567';
      const body = `--${boundary}\r\ncontent-type: application/json\r\n\r\n{not json\r\n--${boundary}--\r\n`;
      const answer = await request('PUT', `/${DB}/multipart-bad`, {
        body,
        headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      });
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });

    it('answers 400 bad_request for multipart/related without a boundary', async () => {
      const answer = await request('PUT', `/${DB}/multipart-noboundary`, {
        body: '{}',
        headers: { 'content-type': 'multipart/related' },
      });
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });
  });

  describe('PUT /{db} by a non-admin once an admin exists', () => {
    it('answers 401 unauthorized without credentials (the child gate, before express-pouchdb)', async () => {
      const answer = await request('PUT', '/matrix-nonadmin', { auth: '' });
      expectCouchError(answer, [401], 'unauthorized');
      await expectStillRunning();
    });

    it('answers 401 unauthorized with wrong credentials', async () => {
      const answer = await request('PUT', '/matrix-nonadmin', {
        auth: `Basic ${Buffer.from('someone:guess').toString('base64')}`,
      });
      expectCouchError(answer, [401], 'unauthorized');
      expect((await request('GET', '/matrix-nonadmin')).status).to.equal(404);
      await expectStillRunning();
    });
  });

  describe('anonymous DELETE /_replicator and GET /_all_dbs', () => {
    it('are refused with 401 by the gate (express-pouchdb alone would allow both)', async () => {
      expectCouchError(await request('GET', '/_all_dbs', { auth: '' }), [401], 'unauthorized');
      expectCouchError(await request('DELETE', '/_replicator', { auth: '' }), [401], 'unauthorized');
      expect((await request('GET', '/_replicator')).status).to.equal(200);
      await expectStillRunning();
    });
  });

  describe('POST /_replicate with an unreachable source or target', () => {
    it('answers 404 db_not_found for an unreachable source', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: 'http://127.0.0.1:1/nowhere', target: `${DB}-from-nowhere`, create_target: true },
      });
      expectCouchError(answer, [404], 'db_not_found');
      expect(answer.body.reason).to.contain('http://127.0.0.1:1/nowhere');
      await expectStillRunning();
    });

    it('answers 404 db_not_found for an unreachable target', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: DB, target: 'http://127.0.0.1:1/nowhere' },
      });
      expectCouchError(answer, [404], 'db_not_found');
      await expectStillRunning();
    });

    it('answers 200 for a continuous replication to an unreachable target and survives its failure', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: DB, target: 'http://127.0.0.1:1/nowhere', continuous: true },
      });
      expect(answer.status, answer.text).to.equal(200);
      await delay(1000);
      await expectStillRunning();
    });

    it('answers 400 bad_request without source and target', async () => {
      const answer = await request('POST', '/_replicate', { body: {} });
      expectCouchError(answer, [400], 'bad_request');
      await expectStillRunning();
    });
  });

  describe('PUT /_replicator/{docid} whose replication fails', () => {
    it('records the error state for an unreachable source (retry: false)', async () => {
      const put = await request('PUT', '/_replicator/unreachable-source', {
        body: { source: 'http://127.0.0.1:1/nowhere', target: `${DB}-replicator-nowhere`, retry: false },
      });
      expect(put.status, put.text).to.equal(201);
      const doc = await waitForReplicationState('unreachable-source', ['error', 'completed']);
      expect(doc._replication_state, JSON.stringify(doc)).to.equal('error');
      await expectStillRunning();
    });

    it('records the error state for a target URL without credentials (401)', async () => {
      const put = await request('PUT', '/_replicator/no-credentials', {
        body: { source: DB, target: dbUrl(`${DB}-replicator-nocreds`, false) },
      });
      expect(put.status, put.text).to.equal(201);
      const doc = await waitForReplicationState('no-credentials', ['error', 'completed']);
      expect(doc._replication_state, JSON.stringify(doc)).to.equal('error');
      await expectStillRunning();
    });
  });

  describe('POST /_replicate into a secured database without credentials in the target URL', () => {
    before(async () => {
      expect((await request('PUT', '/matrix-secured')).status).to.equal(201);
      const security = await request('PUT', '/matrix-secured/_security', {
        body: { admins: { names: ['someone'], roles: [] }, members: { names: ['someone'], roles: [] } },
      });
      expect(security.status, security.text).to.equal(200);
    });

    it('answers 401 unauthorized', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: DB, target: dbUrl('matrix-secured', false) },
      });
      expectCouchError(answer, [401], 'unauthorized');
      await expectStillRunning();
    });

    it('answers 401 unauthorized for a secured http source too', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: dbUrl('matrix-secured', false), target: `${DB}-from-secured`, create_target: true },
      });
      expectCouchError(answer, [401], 'unauthorized');
      await expectStillRunning();
    });

    it('replicates with the admin credentials in the target URL', async () => {
      const answer = await request('POST', '/_replicate', {
        body: { source: DB, target: dbUrl('matrix-secured') },
      });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.ok).to.equal(true);
      await expectStillRunning();
    });
  });

  describe('DELETE /_replicator/{docid} of a running continuous replication', () => {
    for (const kind of ['local', 'http'] as const) {
      it(`stops the replication and keeps running (${kind} databases)`, async () => {
        const docId = `continuous-${kind}`;
        const target = `${DB}-continuous-${kind}`;
        const source = kind === 'http' ? dbUrl(DB) : DB;
        const put = await request('PUT', `/_replicator/${docId}`, {
          body: { source, target: kind === 'http' ? dbUrl(target) : target, create_target: true, continuous: true },
        });
        expect(put.status, put.text).to.equal(201);
        const running = await waitForReplicationState(docId, ['triggered']);
        // Let the replication actually run before deleting its document.
        const deadline = Date.now() + 10000;
        while ((await request('GET', `/${encodeURIComponent(target)}`)).status !== 200 && Date.now() < deadline) await delay(100);
        await delay(300);
        const removed = await request('DELETE', `/_replicator/${docId}?rev=${running._rev as string}`);
        if (removed.status === 409) {
          // The replicator updated its own document meanwhile: delete the current revision.
          const current = await request('GET', `/_replicator/${docId}`);
          const retry = await request('DELETE', `/_replicator/${docId}?rev=${current.body._rev as string}`);
          expect(retry.status, retry.text).to.equal(200);
        } else {
          expect(removed.status, removed.text).to.equal(200);
        }
        await delay(500);
        await expectStillRunning();
      });
    }
  });

  describe('GET /{db}/_changes?feed=longpoll&timeout=…', () => {
    it('answers an empty result once the timeout passes (CouchDB 3 behaviour)', async () => {
      const started = Date.now();
      const answer = await request('GET', `/${DB}/_changes?feed=longpoll&since=now&timeout=300`, { timeoutMs: 5000 });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.results).to.deep.equal([]);
      expect(answer.body).to.have.property('last_seq');
      expect(Date.now() - started).to.be.below(4000);
      await expectStillRunning();
    });
  });

  describe('GET / after the whole matrix', () => {
    it('is still the first child and the supervisor never restarted it', async () => {
      const root = await request('GET', '/');
      expect(root.status).to.equal(200);
      expect(couch.pid).to.equal(firstPid);
      expect(couch.restartCount).to.equal(0);
    });
  });
});
