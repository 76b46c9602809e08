/**
 * Arguments of the wrong type, empty values of boolean and date arguments (audit-spec finding 4)
 * and bodies not declared JSON (issue 14, defects 4 and 5): each is refused in the service's own
 * error form, never read as "no argument" or as JSON anyway.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };

describe('request argument types and body media types', () => {
  let node: TestNode;
  let publishedIds: string[] = [];
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    const published = await postJson(`${node.url}/publish`, { documents: nsdlDocs(3) }, AUTH);
    publishedIds = (published.body.document_results as { doc_ID: string }[]).map((result) => result.doc_ID);
  });
  after(async () => node.stop());

  for (const [name, body] of [['request_IDs null', { request_IDs: null }], ['request_IDs a string', { request_IDs: 'x' }], ['by_doc_ID null', { by_doc_ID: null }], ['ids_only a number', { ids_only: 1 }]] as const) {
    it(`POST /obtain with ${name} is an error, not every document`, async () => {
      const { status, body: answer } = await postJson(`${node.url}/obtain`, body);
      expect(status).to.equal(500);
      expect(answer.OK).to.equal(false);
      expect(answer).to.not.have.property('documents');
    });
  }

  // Defect 4 beyond /obtain: a JSON null, number, object or array where a string (or a flag) is
  // expected is a badArgument in Basic Harvest's own form (HTTP 200, OK false, spec "Basic Harvest
  // (JSON)"), never read as "argument absent" (null once listed every record).
  const wrongTypes: [string, unknown][] = [['null', null], ['a number', 5], ['an object', { a: 1 }], ['an array', ['2020-01-01']], ['a boolean', true]];
  for (const [verb, name] of [['listrecords', 'from'], ['listrecords', 'until'], ['listidentifiers', 'from'], ['listrecords', 'resumption_token'], ['getrecord', 'request_ID'], ['getrecord', 'by_doc_ID']] as const) {
    for (const [label, value] of wrongTypes) {
      if (name === 'by_doc_ID' && typeof value === 'boolean') continue;
      it(`POST /harvest/${verb} with ${name} ${label} is a badArgument, not a listing`, async () => {
        const args = verb === 'getrecord' && name !== 'request_ID' ? { request_ID: 'x', [name]: value } : { [name]: value };
        const { status, body } = await postJson(`${node.url}/harvest/${verb}`, args);
        expect(status).to.equal(200);
        expect(body).to.include({ OK: false, error: 'badArgument' });
        expect(String(body.message)).to.include(name);
        expect(body.responseDate).to.be.a('string');
        expect((body.request as Record<string, unknown>).verb).to.equal(verb);
        expect(body).to.not.have.property('documents');
      });
    }
  }

  describe('an empty boolean or date argument is a bad argument in every service, never read as absent', () => {
    it('obtain (GET and POST): its HTTP 500 error naming the argument, not the default answer; an empty request_ID too', async () => {
      const id = encodeURIComponent(publishedIds[0] as string);
      const gets: [string, string][] = [
        [`request_ID=${id}&by_doc_ID=`, 'by_doc_ID'], [`request_ID=${id}&by_resource_ID=`, 'by_resource_ID'], ['ids_only=', 'ids_only'],
        ['request_ID=', 'request_ID'], ['request_id=', 'request_id'], ['request_ID=&ids_only=T', 'request_ID'],
      ];
      const posts: [Record<string, unknown>, string][] = [
        [{ request_IDs: [publishedIds[0]], by_doc_ID: '' }, 'by_doc_ID'], [{ request_IDs: [publishedIds[0]], by_resource_ID: '' }, 'by_resource_ID'], [{ ids_only: '' }, 'ids_only'],
      ];
      const answers = [
        ...await Promise.all(gets.map(async ([query, name]) => [query, name, await getJson(`${node.url}/obtain?${query}`)] as const)),
        ...await Promise.all(posts.map(async ([sent, name]) => [JSON.stringify(sent), name, await postJson(`${node.url}/obtain`, sent)] as const)),
      ];
      for (const [sent, name, { status, body }] of answers) {
        expect(status, sent).to.equal(500);
        expect(body.OK, sent).to.equal(false);
        expect(String(body.error), sent).to.match(new RegExp(`^${name} (must be T or F|is empty)`));
        expect(body, sent).to.not.have.property('documents');
      }
    });

    it('Basic Harvest (GET, POST and OAI-PMH with the JSON prefix): OK false badArgument naming the argument', async () => {
      const id = encodeURIComponent(publishedIds[0] as string);
      const gets: [string, string][] = [
        [`getrecord?request_ID=${id}&by_doc_ID=`, 'by_doc_ID'], [`getrecord?request_ID=${id}&by_resource_ID=`, 'by_resource_ID'],
        ['listrecords?from=', 'from'], ['listrecords?until=', 'until'], ['listidentifiers?from=', 'from'], ['listidentifiers?from=2000-01-01&until=', 'until'],
      ];
      const posts: [string, Record<string, unknown>, string][] = [
        ['getrecord', { request_ID: publishedIds[0], by_doc_ID: '' }, 'by_doc_ID'], ['getrecord', { request_ID: publishedIds[0], by_resource_ID: '' }, 'by_resource_ID'],
        ['listrecords', { from: '' }, 'from'], ['listidentifiers', { until: '' }, 'until'],
      ];
      const answers = [
        ...await Promise.all(gets.map(async ([query, name]) => [query, name, await getJson(`${node.url}/harvest/${query}`)] as const)),
        ...await Promise.all(posts.map(async ([verb, sent, name]) => [`${verb} ${JSON.stringify(sent)}`, name, await postJson(`${node.url}/harvest/${verb}`, sent)] as const)),
        ...await Promise.all([['ListRecords', 'from'], ['ListIdentifiers', 'until']].map(async ([verb, name]) => [`OAI-PMH ${verb} JSON prefix`, name as string, await getJson(`${node.url}/OAI-PMH?verb=${verb}&metadataPrefix=LR_JSON_0.10.0&${name}=`)] as const)),
      ];
      for (const [sent, name, { status, body }] of answers) {
        expect(status, sent).to.equal(200);
        expect(body, sent).to.include({ OK: false, error: 'badArgument' });
        expect(String(body.message), sent).to.include(name);
        expect(body, sent).to.not.have.any.keys('getrecord', 'listrecords', 'listidentifiers');
      }
    });

    it('OAI-PMH (XML) and slice keep their own forms: badArgument, 400', async () => {
      const id = encodeURIComponent(publishedIds[0] as string);
      for (const query of [`verb=GetRecord&metadataPrefix=oai_dc&identifier=${id}&by_doc_ID=`, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id}&by_resource_ID=`, 'verb=ListRecords&metadataPrefix=oai_dc&from=', 'verb=ListIdentifiers&metadataPrefix=oai_dc&until=']) {
        expect(await (await fetch(`${node.url}/OAI-PMH?${query}`)).text(), query).to.contain('<error code="badArgument"');
      }
      for (const query of ['any_tags=x&ids_only=', 'any_tags=x&from=', 'any_tags=x&until=']) {
        const { status, body } = await getJson(`${node.url}/slice?${query}`);
        expect(status, query).to.equal(400);
        expect(body.OK, query).to.equal(false);
      }
    });
  });

  // The spec names `T` and `F` ("Endpoints"); the README documents the other spellings every
  // service accepts, and this keeps the four services to that one list (domain/spec-boolean.ts).
  it('the documented boolean spellings mean the same in obtain, Basic Harvest, OAI-PMH and slice; others are refused', async () => {
    const id = encodeURIComponent(publishedIds[0] as string);
    for (const [spelling, value] of [['T', true], ['t', true], ['true', true], ['TRUE', true], ['True', true], ['F', false], ['f', false], ['false', false], ['FALSE', false]] as const) {
      const obtained = await getJson(`${node.url}/obtain?request_ID=${id}&by_doc_ID=${spelling}`);
      expect((obtained.body.documents as { document: unknown }[])[0]?.document === null, `obtain ${spelling}`).to.equal(!value);
      const harvested = await getJson(`${node.url}/harvest/getrecord?request_ID=${id}&by_doc_ID=${spelling}`);
      expect((harvested.body.request as Record<string, unknown>).by_doc_ID, `harvest ${spelling}`).to.equal(value ? 'T' : 'F');
      const xml = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=${id}&by_doc_ID=${spelling}`)).text();
      expect(xml.includes('<error code="idDoesNotExist"'), `OAI-PMH ${spelling}`).to.equal(!value);
      const sliced = await getJson(`${node.url}/slice?ids_only=${spelling}`);
      expect((sliced.body.documents as object[]).every((entry) => Object.keys(entry).join() === 'doc_ID'), `slice ${spelling}`).to.equal(value);
    }
    for (const spelling of ['yes', '1', 'Tr', 'FALSE!']) {
      expect((await getJson(`${node.url}/obtain?request_ID=${id}&by_doc_ID=${spelling}`)).status, spelling).to.equal(500);
      expect((await getJson(`${node.url}/harvest/getrecord?request_ID=${id}&by_doc_ID=${spelling}`)).body.error, spelling).to.equal('badArgument');
      expect(await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=${id}&by_doc_ID=${spelling}`)).text(), spelling).to.contain('<error code="badArgument"');
      expect((await getJson(`${node.url}/slice?ids_only=${spelling}`)).status, spelling).to.equal(400);
    }
  });

  describe('an empty resumption token is a bad token in every service, never the first page', () => {
    it('obtain (GET and POST): its HTTP 500 flow control error, not ALL from the start', async () => {
      const answers = [
        ...await Promise.all(['resumption_token=', 'ids_only=T&resumption_token='].map(async (query) => [query, await getJson(`${node.url}/obtain?${query}`)] as const)),
        ...await Promise.all([{ resumption_token: '' }, { ids_only: true, resumption_token: '' }].map(async (sent) => [JSON.stringify(sent), await postJson(`${node.url}/obtain`, sent)] as const)),
      ];
      for (const [sent, { status, body }] of answers) {
        expect(status, sent).to.equal(500);
        expect(body.OK, sent).to.equal(false);
        expect(String(body.error), sent).to.match(/^flow control error: resumption_token is empty/);
        expect(body, sent).to.not.have.property('documents');
      }
    });

    it('Basic Harvest (GET and POST): OK false badResumptionToken, not the list from the start', async () => {
      const answers = [
        ...await Promise.all(['listrecords', 'listidentifiers'].map(async (verb) => [`GET ${verb}`, await getJson(`${node.url}/harvest/${verb}?resumption_token=`)] as const)),
        ...await Promise.all(['listrecords', 'listidentifiers'].map(async (verb) => [`POST ${verb}`, await postJson(`${node.url}/harvest/${verb}`, { resumption_token: '' })] as const)),
      ];
      for (const [sent, { status, body }] of answers) {
        expect(status, sent).to.equal(200);
        expect(body, sent).to.include({ OK: false, error: 'badResumptionToken' });
        expect(String(body.message), sent).to.include('resumption_token is empty');
        expect(body, sent).to.not.have.any.keys('listrecords', 'listidentifiers');
      }
    });

    it('OAI-PMH (XML) and slice keep their own forms: badResumptionToken, 400', async () => {
      for (const verb of ['ListRecords', 'ListIdentifiers']) {
        expect(await (await fetch(`${node.url}/OAI-PMH?verb=${verb}&resumptionToken=`)).text(), verb).to.contain('<error code="badResumptionToken"');
      }
      const { status, body } = await getJson(`${node.url}/slice?resumption_token=`);
      expect(status).to.equal(400);
      expect(body.OK).to.equal(false);
    });
  });

  it('GET /slice with a repeated argument is a 400 naming it, never one of the values', async () => {
    for (const query of ['from=2020-01-01&from=2020-01-02', 'identity=a&identity=b', 'ids_only=T&ids_only=F', 'resumption_token=a&resumption_token=b']) {
      const { status, body } = await getJson(`${node.url}/slice?${query}`);
      expect(status, query).to.equal(400);
      expect(body.OK, query).to.equal(false);
      expect(String(body.error), query).to.match(/given more than once/);
    }
  });

  // /publish and /delete: the one array argument of the wrong type is a global error (spec
  // "Publish" / "Basic Delete": HTTP 500, OK false), never an empty or partial batch.
  const batchCases: [string, string, unknown][] = [
    ['/publish', 'documents', null], ['/publish', 'documents', 5], ['/publish', 'documents', { doc_ID: 'x' }], ['/publish', 'documents', 'x'],
    ['/delete', 'request_IDs', null], ['/delete', 'request_IDs', 5], ['/delete', 'request_IDs', 'doc'], ['/delete', 'request_IDs', { a: 'b' }],
    ['/delete', 'request_IDs', [null]], ['/delete', 'request_IDs', [5]],
  ];
  for (const [path, name, value] of batchCases) {
    it(`POST ${path} with ${name} ${JSON.stringify(value)} is a global error, nothing written`, async () => {
      const { status, body } = await postJson(`${node.url}${path}`, { [name]: value }, AUTH);
      expect(status).to.equal(500);
      expect(body.OK).to.equal(false);
      expect(String(body.error)).to.include(name.slice(0, -1));
      expect(body).to.not.have.property('document_results');
    });
  }

  it('POST /obtain with a request ID over the length limit names the limit', async () => {
    const { body } = await postJson(`${node.url}/obtain`, { request_IDs: ['x'.repeat(9000)] });
    expect(body.OK).to.equal(false);
    expect(String(body.error)).to.match(/limit is 8192/);
  });

  for (const path of ['/obtain', '/publish', '/delete', '/harvest/listrecords']) {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      it(`POST ${path} with a JSON body sent as ${type}: 415 {"OK": false}`, async () => {
        // /delete names a stored document: read as JSON anyway, the request would delete it.
        const sent = path === '/delete' ? { request_IDs: publishedIds.slice(0, 1) } : { documents: nsdlDocs(1) };
        const { status, body } = await getJson(`${node.url}${path}`, { method: 'POST', headers: { 'content-type': type, ...AUTH }, body: JSON.stringify(sent) });
        expect(status).to.equal(415);
        expect(body.OK).to.equal(false);
        expect(String(body.error)).to.match(/Content-Type: application\/json/);
      });
    }
  }

  it('a JSON body with no Content-Type at all: 415, not read as JSON', async () => {
    for (const path of ['/obtain', '/delete']) {
      // A byte body: fetch adds no Content-Type of its own (a string body would be sent as text/plain).
      const sent = path === '/delete' ? { request_IDs: publishedIds.slice(0, 1) } : { ids_only: true };
      const { status, body } = await getJson(`${node.url}${path}`, { method: 'POST', headers: AUTH, body: Buffer.from(JSON.stringify(sent)) });
      expect(status, path).to.equal(415);
      expect(body.OK).to.equal(false);
    }
  });

  it('application/json with and without a charset is still read, and a +json type (RFC 6839)', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/ld+json']) {
      const { status, body } = await getJson(`${node.url}/obtain`, { method: 'POST', headers: { 'content-type': type }, body: '{"ids_only": true}' });
      expect(status, type).to.equal(200);
      expect(body).to.have.property('documents');
    }
  });
});
