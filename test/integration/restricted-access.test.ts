/**
 * Access services whose description asks for `basicauth` (service_auth.service_authz) serve the
 * node's accounts only, as `/services` advertises: obtain, harvest, OAI-PMH and slice alike (only
 * slice enforced it before; an operator audit found the others open).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';
import { loadStoredCorpus } from '../support/corpus.js';
import { storeUnavailable } from '../../src/errors/app-error.js';

const restricted = { service_auth: { service_authz: ['basicauth'] } };
const URLS = [
  '/obtain?request_ID=doc-00001&by_doc_ID=T',
  '/obtain',
  '/harvest/listrecords',
  '/harvest/getrecord?request_ID=doc-00001&by_doc_ID=T',
  '/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc',
  '/slice?any_tags=none',
];

describe('access services restricted to the node\'s accounts (service_authz basicauth)', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: restricted, harvest: restricted, oai_pmh: restricted, slice: restricted } } });
    await addAccount(node, 'reader', 'reader-password-1');
    await loadStoredCorpus(node, 3);
  });
  after(async () => node.stop());

  it('/services advertises basicauth for each', async () => {
    const services = ((await (await fetch(`${node.url}/services`)).json()) as { services: { service_name: string; service_auth: { service_authz: string[] } }[] }).services;
    for (const name of ['Basic Obtain', 'Basic Harvest', 'OAI-PMH Harvest', 'Slice']) {
      expect(services.find((s) => s.service_name === name)?.service_auth.service_authz, name).to.deep.equal(['basicauth']);
    }
  });

  it('answers 401 with a Basic challenge without credentials, and with wrong ones', async () => {
    for (const url of URLS) {
      for (const headers of [{}, { authorization: basicAuth('reader', 'wrong-password-1') }] as Record<string, string>[]) {
        const response = await fetch(`${node.url}${url}`, { headers });
        expect(response.status, url).to.equal(401);
        expect(response.headers.get('www-authenticate'), url).to.match(/^Basic /);
      }
    }
    const posted = await fetch(`${node.url}/OAI-PMH`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'verb=Identify' });
    expect(posted.status).to.equal(401);
  });

  it('serves an account', async () => {
    const headers = { authorization: basicAuth('reader', 'reader-password-1') };
    for (const url of URLS) {
      const response = await fetch(`${node.url}${url}`, { headers });
      expect(response.status, url).to.equal(200);
    }
    const oai = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=doc-00001`, { headers })).text();
    expect(oai).to.contain('<identifier>doc-00001</identifier>');
  });

  it('OAI-PMH: when its description cannot be read, a request gets a 503, not the service without credentials', async () => {
    // The access check's read failed (a store that flaps) and the handler's own read then
    // succeeded: the restricted service answered anyone.
    const settings = node.deps.settings;
    const original = settings.of.bind(settings);
    let failures = 1;
    settings.of = (async (key: Parameters<typeof original>[0]) => {
      if (key === 'oai_pmh' && failures > 0) { failures -= 1; throw storeUnavailable('the store did not answer'); }
      return original(key);
    }) as typeof settings.of;
    try {
      const response = await fetch(`${node.url}/OAI-PMH?verb=Identify`);
      expect(response.status).to.equal(503);
      expect(response.headers.get('retry-after')).to.match(/^\d+$/);
      expect(await response.text()).to.not.include('<Identify>');
      expect((await fetch(`${node.url}/OAI-PMH?verb=Identify`)).status, 'with the description readable again').to.equal(401);
    } finally {
      settings.of = original;
    }
  });

  it('the node endpoints and the OAI-PMH schemas stay open', async () => {
    for (const url of ['/status', '/services', '/description', '/schemas/OAI-PMH-LR.xsd']) {
      expect((await fetch(`${node.url}${url}`)).status, url).to.equal(200);
    }
  });
});
