/** OAI-PMH ListRecords pages of any provider (prefixed OAI namespace, deleted records, sets, errors) and Retry-After. */
import { expect } from 'chai';
import { oaiPage, pageUrl } from '../../../src/cli/harvest-pages.js';
import { retryAfterMs } from '../../../src/cli/http-client.js';
import { CliError } from '../../../src/cli/errors.js';
import { EXIT } from '../../../src/errors/exit-codes.js';

const page = (body: string): string => `<?xml version="1.0"?><oai:OAI-PMH xmlns:oai="http://www.openarchives.org/OAI/2.0/"><oai:responseDate>2026-01-01T00:00:00Z</oai:responseDate><oai:request verb="ListRecords">http://x/oai</oai:request>${body}</oai:OAI-PMH>`;

describe('lr-node harvest: OAI-PMH pages', () => {
  it('reads records of another provider: prefixed OAI elements, deleted records, setSpec, metadata as XML with its namespaces', () => {
    const result = oaiPage(page(`<oai:ListRecords>
      <oai:record><oai:header><oai:identifier>oai:x:1</oai:identifier><oai:datestamp>2026-01-01</oai:datestamp><oai:setSpec>math</oai:setSpec><oai:setSpec>k12</oai:setSpec></oai:header>
        <oai:metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A &amp; B</dc:title><header>inside metadata</header></oai_dc:dc></oai:metadata></oai:record>
      <oai:record><oai:header status="deleted"><oai:identifier>oai:x:2</oai:identifier><oai:datestamp>2026-01-02</oai:datestamp></oai:header></oai:record>
      <oai:resumptionToken completeListSize="7" cursor="0">next-page</oai:resumptionToken></oai:ListRecords>`));
    expect(result.token).to.equal('next-page');
    expect(result.total).to.equal(7);
    expect(result.records).to.deep.equal([
      { header: { identifier: 'oai:x:1', datestamp: '2026-01-01', status: 'active', setSpec: ['math', 'k12'] },
        metadata: '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A &amp; B</dc:title><header>inside metadata</header></oai_dc:dc>' },
      { header: { identifier: 'oai:x:2', datestamp: '2026-01-02', status: 'deleted' } },
    ]);
  });

  it('an empty token ends the list; noRecordsMatch is an empty harvest; other errors are the provider refusing', () => {
    expect(oaiPage(page('<oai:ListRecords><oai:resumptionToken completeListSize="0"/></oai:ListRecords>'))).to.deep.equal({ records: [], token: null, total: 0 });
    expect(oaiPage(page('<oai:error code="noRecordsMatch">none</oai:error>'))).to.deep.equal({ records: [], token: null });
    const refused = (): unknown => oaiPage(page('<oai:error code="badResumptionToken">expired</oai:error>'));
    expect(refused).to.throw(CliError, 'OAI-PMH error badResumptionToken: expired').with.property('exitCode', EXIT.refused);
    expect(() => oaiPage('<html>busy</html')).to.throw(CliError, /not well-formed XML/);
    expect(() => oaiPage('<html/>')).to.throw(CliError, /not an OAI-PMH document/);
  });

  it('asks for the first page with the selection and for the next ones with the token alone (OAI-PMH 3.5: resumptionToken is exclusive)', () => {
    const query = { url: 'http://node.example.org', via: 'oai' as const, prefix: 'oai_dc', from: '2026-01-01' };
    expect(pageUrl(query, null)).to.equal('http://node.example.org/OAI-PMH?verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01');
    expect(pageUrl({ ...query, url: 'http://repo.example.org/cgi/oai2' }, 'a b')).to.equal('http://repo.example.org/cgi/oai2?verb=ListRecords&resumptionToken=a+b');
    expect(pageUrl({ ...query, via: 'json' }, 'T')).to.equal('http://node.example.org/harvest/listrecords?resumption_token=T');
  });

  it('Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs('7')).to.equal(7000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', Date.parse('2026-01-01T00:00:00Z'))).to.equal(10000);
    expect(retryAfterMs('soon')).to.equal(undefined);
    expect(retryAfterMs(null)).to.equal(undefined);
  });
});
