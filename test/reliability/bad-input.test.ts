/**
 * Bad input, generated (issue 14): fast-check builds requests for every endpoint — broken JSON,
 * wrong types in every field, huge strings and arrays, deep nesting, invalid UTF-8 and
 * XML-forbidden characters, special doc_IDs, junk and forged resumption tokens, every boolean
 * spelling, repeated query parameters, oversized bodies — and each answer must be the
 * protocol's own form (JSON {"OK": false}, OAI-PMH <error>, sword:error), never an unhandled
 * 5xx, a hang or a stack trace; /status still answers after each endpoint's run. The node's
 * other endpoints too: /auth/* (against a real OpenID Connect provider, with a signed-in session,
 * forged cookies and junk forms), /metrics and /dashboard (every spelling of a wrong
 * Authorization), /swordservice, /schemas/*.xsd (names that try to leave the schema directory)
 * and generated replication requests to /incoming. Each run prints the statuses it met, so a
 * property that only ever met refusals shows.
 */
import http from 'node:http';
import fc from 'fast-check';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { CLIENT_ID, CLIENT_SECRET, csrfOf, signInWithoutBrowser, startTestProvider, type TestProvider } from '../support/oidc.js';
import {
  SIZES, record, send, expectJsonForm, expectOaiForm, expectSwordForm, expectAuthForm, expectDashboardForm, expectMetricsForm, expectSchemaForm, expectCouchForm, type Answer,
} from './support.js';

const AUTH = basicAuth('fuzz', 'fuzz-password-1');
const OPS = basicAuth('ops', 'ops-password-1');
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

/** What a header may carry (fetch refuses control characters and non-Latin-1 text before sending). */
const headerSafe = (value: string): string => value.replace(/[^\x20-\x7e]/g, '');

/** Authorization headers: none, the right and wrong accounts, a wrong password, junk Basic and Bearer values. */
const authorization = fc.oneof(
  // The accounts themselves often enough that the endpoints' own answers are checked too, not only refusals.
  { weight: 4, arbitrary: fc.constantFrom<string | undefined>(OPS, AUTH) },
  fc.constantFrom<string | undefined>(undefined, basicAuth('ops', 'wrong-password'), basicAuth('', ''), 'Basic', 'Bearer', 'Negotiate abc'),
  fc.string({ maxLength: 60 }).map((value) => `Basic ${headerSafe(value)}`),
  fc.base64String({ maxLength: 120 }).map((value) => `Basic ${value}`),
  token.map((value) => `Bearer ${headerSafe(value)}`),
  fc.string({ maxLength: 80 }).map(headerSafe),
);

/** HTML form bodies: known fields with generated values, raw broken encodings, invalid UTF-8, over the 8 KiB limit. */
function form(fields: string[]): fc.Arbitrary<string | Buffer> {
  const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 10 })), fc.oneof(text, token)), { maxLength: 6 })
    .map((list) => new URLSearchParams(list).toString());
  const raw = fc.constantFrom('%FF', '%', 'csrf=%E0%80', '%00=%00', '&&==', 'a'.repeat(20000), '');
  const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from('password='), Buffer.from([0xff, 0xfe, ...bytes])]));
  return fc.oneof(pairs, raw, invalidUtf8);
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
  /** A real OpenID Connect provider, so that /auth runs its routes rather than "not configured". */
  let provider: TestProvider;
  /** A signed-in session (its cookie) and its CSRF token, for /auth requests that get past the session check. */
  let session: { cookie: string; csrf: string };
  before(async () => {
    provider = await startTestProvider();
    node = await startTestNode({ env: { LOG_LEVEL: 'warn', OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET } });
    await provider.register(`${node.publicUrl}/auth/callback`);
    await addAccount(node, 'fuzz', 'fuzz-password-1');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
    base = nsdlDocs(1)[0] as Doc;
    await postJson(`${node.url}/publish`, { documents: nsdlDocs(20) }, { authorization: AUTH });
    const { jar } = await signInWithoutBrowser(node.url, 'fuzzer');
    session = { cookie: jar.header(), csrf: await csrfOf(jar, node.url) };
  });
  after(async () => {
    await node?.stop();
    await provider?.close();
  });

  async function run<T>(name: string, arbitrary: fc.Arbitrary<T>, call: (value: T) => Promise<Answer>, check: (answer: Answer, what: string) => void): Promise<void> {
    let cases = 0;
    const statuses = new Map<number, number>();
    const outcome = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
      cases += 1;
      const answer = await call(value);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      check(answer, `${name} ${String(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 300)}`);
    }), { numRuns: SIZES.runs, endOnFailure: true });
    // The counterexample itself may be megabytes (huge strings): the message is kept short.
    if (outcome.failed) throw new Error(`${name} failed (seed ${outcome.seed}, path ${outcome.counterexamplePath ?? ''}): ${String(((outcome as { errorInstance?: unknown }).errorInstance as Error | undefined)?.message ?? 'no message').slice(0, 1500)}`);
    record(`bad input: ${name}`, { cases });
    // The statuses show which paths the cases reached (refusals only would test little).
    console.log(`      ${name}: ${cases} cases (HTTP ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(', ')})`);
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
  it('node endpoints and unknown paths', () => run('node endpoints', fc.tuple(fc.constantFrom('/status', '/services', '/description', '/policy', '/pubkey', '/nothing', '/incoming', '/destination', '/distribute'), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), query(['x'])),
    ([path, method, q]) => send(`${node.url}${path}?${q}`, { method, ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) }),
    (answer, what) => { if (!what.includes('/pubkey') || answer.status !== 200) expectJsonForm(answer, what); }));

  const headersOf = (entries: Record<string, string | undefined>): Record<string, string> =>
    Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined));

  // /auth: a signed-in session or none or a forged one, the session's CSRF token or junk, every route and method.
  const AUTH_ROUTES: [string, string][] = [
    ['GET', '/auth'], ['GET', '/auth/'], ['GET', '/auth/login'], ['GET', '/auth/callback'],
    ['POST', '/auth/password'], ['POST', '/auth/password/revoke'], ['POST', '/auth/tokens'], ['POST', '/auth/tokens/revoke'], ['POST', '/auth/logout'],
  ];
  // Mostly the routes /auth has, with their methods (refusals of unknown paths alone would test little).
  const authRequest = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...AUTH_ROUTES) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), fc.oneof(fc.constantFrom(...AUTH_ROUTES.map(([, path]) => path)), fc.string({ maxLength: 20 }).map((tail) => `/auth/${encodeURIComponent(tail)}`))) },
  );
  const cookie = fc.oneof(
    fc.constantFrom<'session' | undefined>('session', undefined),
    fc.tuple(fc.constantFrom('lr_auth', 'lr_auth_login'), fc.oneof(token, fc.string({ maxLength: 60 }))).map(([name, value]) => `${name}=${headerSafe(value)}`),
    fc.string({ maxLength: 80 }).map((value) => `lr_auth=${headerSafe(value)}.${headerSafe(value)}`),
  );
  it('/auth/*', () => run('/auth', fc.record({
    route: authRequest,
    q: query(['code', 'state', 'iss', 'error', 'error_description', 'session_state']),
    cookie,
    csrf: fc.constantFrom('session', 'junk', 'none'),
    b: form(['csrf', 'password', 'confirmation', 'label', 'id']),
    type: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=latin1', 'application/json', 'multipart/form-data; boundary=x', 'text/plain'),
  }), ({ route: [method, path], q, cookie: jarCookie, csrf, b, type }) => {
    const withCsrf = csrf === 'none' || typeof b !== 'string' ? b : `${b}&csrf=${csrf === 'session' ? session.csrf : 'x'.repeat(43)}`;
    const body = method === 'GET' ? undefined : typeof withCsrf === 'string' ? withCsrf : new Uint8Array(withCsrf);
    return send(`${node.url}${path}?${q}`, {
      method, redirect: 'manual', body,
      headers: headersOf({ cookie: jarCookie === 'session' ? session.cookie : jarCookie, ...(body === undefined ? {} : { 'content-type': type }) }),
    });
  }, expectAuthForm));

  // /metrics and /dashboard: network_admin only (Basic or Bearer), every spelling of a wrong one.
  const monitoring = (path: string): fc.Arbitrary<{ method: string; q: string; auth: string | undefined }> =>
    fc.record({ method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE'), q: query(['name', 'format', 'x']), auth: authorization }).map((value) => ({ ...value, q: `${path}?${value.q}` }));
  it('GET /metrics', () => run('/metrics', monitoring('/metrics'), ({ method, q, auth }) => send(`${node.url}${q}`, { method, headers: headersOf({ authorization: auth }) }),
    (answer, what) => { if (!what.includes('"method":"HEAD"')) expectMetricsForm(answer, what); else expect(answer.status, what).to.be.below(500); }));
  it('GET /dashboard', () => run('/dashboard', fc.oneof(monitoring('/dashboard'), fc.record({ method: fc.constant('GET'), q: fc.string({ maxLength: 30 }).map((name) => `/dashboard/assets/${encodeURIComponent(name)}`), auth: authorization })),
    ({ method, q, auth }) => send(`${node.url}${q}`, { method, headers: headersOf({ authorization: auth }) }),
    (answer, what) => {
      if (what.includes('"method":"HEAD"')) { expect(answer.status, what).to.be.below(500); return; }
      // A dashboard asset (script, style sheet) is served as itself.
      if (what.includes('/dashboard/assets/') && answer.status === 200) { expect(answer.type, what).to.match(/^(text\/css|text\/javascript|application\/javascript)/); return; }
      expectDashboardForm(answer, what);
    }));

  // /swordservice: the service document for an account (and on behalf of someone), sword:error otherwise.
  it('GET /swordservice', () => run('/swordservice', fc.record({ auth: authorization, onBehalfOf: fc.option(fc.oneof(text, fc.constantFrom('ops', 'fuzz', 'nobody')), { nil: undefined }), verbose: fc.constantFrom(...BOOLEANS), q: query(['x']) }),
    ({ auth, onBehalfOf, verbose, q }) => send(`${node.url}/swordservice?${q}`, { headers: headersOf({ authorization: auth, 'x-on-behalf-of': onBehalfOf === undefined ? undefined : headerSafe(onBehalfOf), 'x-verbose': headerSafe(verbose) }) }),
    expectSwordForm));

  // /schemas/<name>.xsd: the two schemas, and names that try to leave the schema directory.
  const schemaName = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('OAI-PMH-LR.xsd', 'OAI-PMH-LR-json.xsd') },
    fc.constantFrom('..%2F..%2F..%2Fpackage.json', '..%2F..%2F..%2F..%2Fpackage.xsd', '%2e%2e%2fOAI-PMH-LR.xsd', 'OAI-PMH-LR.xsd%00', '.xsd', '..xsd', 'OAI-PMH-LR.XSD', '%2Fetc%2Fpasswd.xsd'),
    fc.string({ maxLength: 40 }).map((name) => `${encodeURIComponent(name)}.xsd`),
    hugeString.map((name) => `${name.slice(0, 10000)}.xsd`),
  );
  // The method first: `what` is cut at 300 characters, and a name may be 10,000 long.
  it('GET /schemas/*.xsd', () => run('/schemas/*.xsd', fc.tuple(fc.constantFrom('GET', 'HEAD', 'POST'), schemaName),
    ([method, name]) => send(`${node.url}/schemas/${name}`, { method }),
    (answer, what) => { if (what.includes('"HEAD"')) expect(answer.status, what).to.be.below(500); else expectSchemaForm(answer, what); }));

  // /incoming: what a replicator sends, generated: _bulk_docs batches (new_edits false, as replicators
  // send them, and true), _revs_diff, checkpoints and single documents, as network_admin.
  const rev = fc.oneof(fc.constantFrom('1-abc', '1-0123456789abcdef0123456789abcdef', '0-x', '-1-a', '', 'x'), fc.string({ maxLength: 20 }));
  // As JSON text: a generated body may be nested 100,000 deep (`deep`), which JSON.parse takes but
  // JSON.stringify overflows the stack on, so such a value is passed on as the text it came as.
  const replicated = fc.tuple(documents(nsdlDocs(1)[0] as Doc), fc.oneof(fc.constantFrom(...SPECIAL_IDS), fc.uuid(), fc.string({ maxLength: 20 })), rev).map(([docs, id, revision]) => {
    const text = typeof docs === 'string' ? docs : docs.toString('utf8');
    const parsed = ((): unknown => { try { return JSON.parse(text); } catch { return undefined; } })();
    if (parsed === undefined) return undefined;
    const list = (parsed as { documents?: unknown } | null)?.documents;
    return Array.isArray(list) ? JSON.stringify(list.map((doc, index) => (doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? { _id: `${id}${index}`, _rev: revision, ...doc } : doc))) : text;
  });
  const incoming = fc.oneof(
    fc.tuple(replicated, fc.oneof(fc.constantFrom<unknown>(false, true, 'false', 0, null), anyJson)).map(([docs, newEdits]) =>
      ({ path: '/_bulk_docs', method: 'POST', b: `{${docs === undefined ? '' : `"docs":${docs},`}"new_edits":${JSON.stringify(newEdits)}}` as string | Buffer })),
    body(['docs', 'new_edits']).map((b) => ({ path: '/_bulk_docs', method: 'POST', b })),
    fc.tuple(fc.constantFrom('/_revs_diff', '/_missing_revs', '/_ensure_full_commit'), body(['doc-1', '_design/x', 'x'])).map(([path, b]) => ({ path, method: 'POST', b })),
    fc.tuple(fc.oneof(fc.constantFrom('/_local/checkpoint', '/_local/lr-incoming-follower', '/_local/'), fc.string({ maxLength: 20 }).map((id) => `/${encodeURIComponent(id)}`)), body(['_rev', 'history', 'session_id', 'source_last_seq'])).map(([path, b]) => ({ path, method: 'PUT', b })),
  );
  it('/incoming (generated replication requests)', () => run('/incoming', incoming,
    ({ path, method, b }) => send(`${node.url}/incoming${path}`, { method, headers: { authorization: OPS, 'content-type': 'application/json' }, body: typeof b === 'string' ? b : new Uint8Array(b) }),
    (answer, what) => { if (answer.status === 401 || answer.status === 403 || answer.status === 404 || answer.status === 405) expectJsonForm(answer, what); else expectCouchForm(answer, what); }));

  it('a 1 GB body is refused before it is read into memory, on every endpoint that takes a body', async () => {
    const paths = ['/publish', '/delete', '/obtain', '/harvest/listrecords', '/OAI-PMH', '/swordpub', '/incoming/_bulk_docs'];
    for (const path of paths) {
      const before = process.memoryUsage().rss;
      const answer = await hugeUpload(`${node.url}${path}`);
      const grown = (process.memoryUsage().rss - before) / 2 ** 20;
      console.log(`      ${path}: ${answer.status} after ${answer.sentMb} MB sent, RSS +${grown.toFixed(0)} MB`);
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).to.be.oneOf([400, 401, 403, 413, 415, 500, 200]);
      if (answer.status === 500) expect(answer.text).to.match(/too large/);
      // Refused for its size: the node closes the connection rather than read the rest of the body.
      if (/too large|larger than/.test(answer.text)) expect(answer.connection, path).to.equal('close');
      if (path === '/OAI-PMH') expect(answer.text, path).to.match(/<error code="badArgument">the form body is larger than 65536 bytes<\/error>/);
      expect(answer.sentMb, path).to.be.below(64);
      expect(grown, path).to.be.below(256);
      record('bad input: 1 GB bodies', { cases: 1 });
    }
    expect((await send(`${node.url}/status`)).status).to.equal(200);
  });
});

/** Declares 1 GB and streams zeros until the node answers; returns what was sent by then. */
function hugeUpload(url: string): Promise<{ status: number; text: string; sentMb: number; connection?: string }> {
  const target = new URL(url);
  const admin = url.includes('/incoming') ? basicAuth('ops', 'ops-password-1') : AUTH;
  return new Promise((resolve, reject) => {
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': url.endsWith('OAI-PMH') ? 'application/x-www-form-urlencoded' : 'application/json', 'content-length': String(2 ** 30), authorization: admin } }, (res) => {
      let text = '';
      res.on('data', (data: Buffer) => { text += data.toString('utf8'); });
      res.on('end', () => { req.destroy(); resolve({ status: res.statusCode ?? 0, text, sentMb: sent / 2 ** 20, connection: res.headers.connection }); });
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
