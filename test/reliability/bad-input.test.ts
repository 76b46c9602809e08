/**
 * Bad input, generated (issue 14): fast-check builds requests for every endpoint — broken JSON,
 * wrong types in every field, huge strings and arrays, deep nesting, invalid UTF-8 and
 * XML-forbidden characters, special doc_IDs, junk and forged resumption tokens, every boolean
 * spelling, repeated query parameters, oversized bodies — and each answer must be the
 * protocol's own form (JSON {"OK": false}, OAI-PMH <error>, sword:error), never an unhandled
 * 5xx, a hang or a stack trace; /status still answers after each endpoint's run.
 */
import http from 'node:http';
import fc from 'fast-check';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { SIZES, record, send, expectJsonForm, expectOaiForm, expectSwordForm, type Answer } from './support.js';

const AUTH = basicAuth('fuzz', 'fuzz-password-1');
const VERBS = ['getrecord', 'listrecords', 'listidentifiers', 'identify', 'listmetadataformats', 'listsets'];
const OAI_VERBS = ['GetRecord', 'ListRecords', 'ListIdentifiers', 'Identify', 'ListMetadataFormats', 'ListSets'];
const SPECIAL_IDS = ['_design/x', '_local/x', '_local/auth_session_secret', '_changes', '_all_docs', '_', '', ' ', '..', '/', 'a/b', '%2F', '\u0000', '\uFFFE', 'x'.repeat(5000)];
const BOOLEANS = ['T', 'F', 't', 'f', 'true', 'false', 'TRUE', 'False', 'yes', 'no', '1', '0', '', ' T', 'null'];

// Values: every kind a field may wrongly receive.
const hugeString = fc.integer({ min: 1000, max: 200000 }).map((n) => 'x'.repeat(n));
const forbiddenXml = fc.array(fc.constantFrom('\u0000', '\u0001', '\u0008', '\u000B', '\uFFFE', '\uFFFF', '\uD800', '<', '&', ']]>', '&foo;'), { minLength: 1, maxLength: 8 }).map((parts) => parts.join('a'));
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom(...BOOLEANS), fc.constantFrom(...SPECIAL_IDS), forbiddenXml, hugeString);
const token = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.base64String({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
  fc.tuple(fc.base64String({ minLength: 8, maxLength: 80 }), fc.base64String({ minLength: 8, maxLength: 40 })).map(([payload, mac]) => `${payload}.${mac}`),
);
const deep = fc.integer({ min: 100, max: 100000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text, fc.array(text, { maxLength: 5 }), fc.constant(null), fc.integer({ min: 10000, max: 100000 }).map((n) => Array.from({ length: n }, () => 'id')));

/** Query strings with known and unknown names, repeated names, raw bad percent-encodings. */
function query(names: string[]): fc.Arbitrary<string> {
  const pair = fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 10 })), fc.oneof(text, token));
  const raw = fc.constantFrom('%FF', '%', '%E0%80', '%00', '%C0%AF', '&&', '=', '==x');
  return fc.tuple(fc.array(pair, { maxLength: 6 }), fc.option(raw, { nil: undefined })).map(([pairs, extra]) => {
    const params = new URLSearchParams();
    for (const [name, value] of pairs) params.append(name, value);
    return `${params.toString()}${extra ? `&${extra}` : ''}`;
  });
}

/** JSON bodies: objects with known fields of wrong types, arbitrary JSON, raw broken text, invalid UTF-8. */
function body(fields: string[]): fc.Arbitrary<string | Buffer> {
  const object = fc.dictionary(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 10 })), anyJson, { maxKeys: 5 }).map((value) => JSON.stringify(value));
  const broken = fc.oneof(fc.constantFrom('{', '{"a":', '[1,]', '{"documents": [}', 'nul', '\u0000', '{"a":1}{"b":2}', ''), fc.string({ maxLength: 80 }), deep);
  const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from('{"request_IDs":["'), Buffer.from([0xff, 0xfe, ...bytes]), Buffer.from('"]}')]));
  return fc.oneof(object, fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'), broken, invalidUtf8);
}

/** Publishable documents with one to three fields replaced by generated values (special doc_IDs among them). */
function documents(base: Doc): fc.Arbitrary<string | Buffer> {
  const field = fc.constantFrom(...Object.keys(base), 'doc_ID', 'replaces', 'digital_signature', 'do_not_distribute', 'node_timestamp', '_id', '_rev', '_attachments');
  const doc = fc.array(fc.tuple(field, fc.oneof(anyJson, fc.constantFrom(...SPECIAL_IDS))), { minLength: 1, maxLength: 3 })
    .map((changes) => ({ ...base, ...Object.fromEntries(changes) }));
  return fc.oneof(
    fc.array(fc.oneof(doc, anyJson), { minLength: 1, maxLength: 5 }).map((docs) => JSON.stringify({ documents: docs })),
    body(['documents']),
  );
}

describe('reliability: generated bad input on every endpoint', function () {
  this.timeout(0);
  let node: TestNode;
  let base: Doc;
  before(async () => {
    node = await startTestNode({ env: { LOG_LEVEL: 'warn' } });
    await addAccount(node, 'fuzz', 'fuzz-password-1');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
    base = nsdlDocs(1)[0] as Doc;
    await postJson(`${node.url}/publish`, { documents: nsdlDocs(20) }, { authorization: AUTH });
  });
  after(async () => node.stop());

  async function run<T>(name: string, arbitrary: fc.Arbitrary<T>, call: (value: T) => Promise<Answer>, check: (answer: Answer, what: string) => void): Promise<void> {
    let cases = 0;
    const outcome = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
      cases += 1;
      const answer = await call(value);
      check(answer, `${name} ${String(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 300)}`);
    }), { numRuns: SIZES.runs, endOnFailure: true });
    // The counterexample itself may be megabytes (huge strings): the message is kept short.
    if (outcome.failed) throw new Error(`${name} failed (seed ${outcome.seed}, path ${outcome.counterexamplePath ?? ''}): ${String(((outcome as { errorInstance?: unknown }).errorInstance as Error | undefined)?.message ?? 'no message').slice(0, 1500)}`);
    record(`bad input: ${name}`, { cases });
    console.log(`      ${name}: ${cases} cases`);
    const status = await send(`${node.url}/status`);
    expect(status.status, `/status after ${name}`).to.equal(200);
  }

  const post = (path: string, payload: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> =>
    send(`${node.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof payload === 'string' ? payload : new Uint8Array(payload) });

  it('GET /obtain', () => run('GET /obtain', query(['request_ID', 'request_id', 'by_doc_ID', 'by_resource_ID', 'ids_only', 'resumption_token']), (q) => send(`${node.url}/obtain?${q}`), expectJsonForm));
  it('POST /obtain', () => run('POST /obtain', body(['request_IDs', 'by_doc_ID', 'by_resource_ID', 'ids_only', 'resumption_token']), (b) => post('/obtain', b), expectJsonForm));
  it('GET /slice', () => run('GET /slice', query(['identity', 'any_tags', 'from', 'until', 'ids_only', 'resumption_token']), (q) => send(`${node.url}/slice?${q}`), expectJsonForm));
  it('GET /harvest/<verb>', () => run('GET /harvest', fc.tuple(fc.oneof(fc.constantFrom(...VERBS), fc.string({ maxLength: 12 }).map((verb) => new URLSearchParams({ verb }).toString().slice(5))), query(['request_ID', 'by_doc_ID', 'by_resource_ID', 'from', 'until', 'resumption_token', 'metadataPrefix'])),
    ([verb, q]) => send(`${node.url}/harvest/${verb}?${q}`), expectJsonForm));
  it('POST /harvest/<verb>', () => run('POST /harvest', fc.tuple(fc.constantFrom(...VERBS), body(['request_ID', 'by_doc_ID', 'by_resource_ID', 'from', 'until', 'resumption_token'])),
    ([verb, b]) => post(`/harvest/${verb}`, b), expectJsonForm));
  it('GET /OAI-PMH', () => run('GET /OAI-PMH', fc.tuple(fc.oneof(fc.constantFrom(...OAI_VERBS), text), query(['identifier', 'metadataPrefix', 'from', 'until', 'set', 'resumptionToken', 'by_doc_ID', 'by_resource_ID', 'verb'])),
    ([verb, q]) => send(`${node.url}/OAI-PMH?${new URLSearchParams({ verb }).toString()}&${q}`), expectOaiForm));
  it('POST /OAI-PMH', () => run('POST /OAI-PMH', fc.tuple(fc.constantFrom(...OAI_VERBS), query(['identifier', 'metadataPrefix', 'from', 'until', 'set', 'resumptionToken', 'verb'])),
    ([verb, q]) => send(`${node.url}/OAI-PMH`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `verb=${verb}&${q}` }), expectOaiForm));
  it('POST /publish', () => run('POST /publish', documents(nsdlDocs(1)[0] as Doc), (b) => post('/publish', b, { authorization: AUTH }), expectJsonForm));
  it('POST /delete', () => run('POST /delete', body(['request_IDs', 'doc_ID']), (b) => post('/delete', b, { authorization: AUTH }), expectJsonForm));
  it('POST /swordpub', () => run('POST /swordpub', fc.oneof(documents(base).map((b) => ({ b, type: 'application/json' })), fc.tuple(body(['doc_type']), fc.constantFrom('text/plain', 'application/zip', 'application/json; charset=latin1')).map(([b, type]) => ({ b, type }))),
    ({ b, type }) => send(`${node.url}/swordpub`, { method: 'POST', headers: { authorization: AUTH, 'content-type': type, 'x-no-op': 'true' }, body: typeof b === 'string' ? b : new Uint8Array(b) }), expectSwordForm));
  it('node endpoints and unknown paths', () => run('node endpoints', fc.tuple(fc.constantFrom('/status', '/services', '/description', '/pubkey', '/nothing', '/incoming', '/destination', '/distribute'), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), query(['x'])),
    ([path, method, q]) => send(`${node.url}${path}?${q}`, { method, ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) }),
    (answer, what) => { if (!what.includes('/pubkey') || answer.status !== 200) expectJsonForm(answer, what); }));

  it('a 1 GB body is refused before it is read into memory, on every endpoint that takes a body', async () => {
    const paths = ['/publish', '/delete', '/obtain', '/harvest/listrecords', '/OAI-PMH', '/swordpub', '/incoming/_bulk_docs'];
    for (const path of paths) {
      const before = process.memoryUsage().rss;
      const answer = await hugeUpload(`${node.url}${path}`);
      const grown = (process.memoryUsage().rss - before) / 2 ** 20;
      console.log(`      ${path}: ${answer.status} after ${answer.sentMb} MB sent, RSS +${grown.toFixed(0)} MB`);
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).to.be.oneOf([400, 401, 403, 413, 415, 500, 200]);
      if (answer.status === 500) expect(answer.text).to.match(/too large/);
      expect(answer.sentMb, path).to.be.below(64);
      expect(grown, path).to.be.below(256);
      record('bad input: 1 GB bodies', { cases: 1 });
    }
    expect((await send(`${node.url}/status`)).status).to.equal(200);
  });
});

/** Declares 1 GB and streams zeros until the node answers; returns what was sent by then. */
function hugeUpload(url: string): Promise<{ status: number; text: string; sentMb: number }> {
  const target = new URL(url);
  const admin = url.includes('/incoming') ? basicAuth('ops', 'ops-password-1') : AUTH;
  return new Promise((resolve, reject) => {
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': url.endsWith('OAI-PMH') ? 'application/x-www-form-urlencoded' : 'application/json', 'content-length': String(2 ** 30), authorization: admin } }, (res) => {
      let text = '';
      res.on('data', (data: Buffer) => { text += data.toString('utf8'); });
      res.on('end', () => { req.destroy(); resolve({ status: res.statusCode ?? 0, text, sentMb: sent / 2 ** 20 }); });
    });
    req.on('error', (error) => (sent > 0 ? undefined : reject(error)));
    const pump = (): void => {
      while (sent < 2 ** 30 && !req.destroyed) {
        sent += chunk.length;
        if (sent > 256 * 2 ** 20) { req.destroy(); resolve({ status: 0, text: 'the node read 256 MB without answering', sentMb: sent / 2 ** 20 }); return; }
        if (!req.write(chunk)) { req.once('drain', pump); return; }
      }
    };
    pump();
  });
}
