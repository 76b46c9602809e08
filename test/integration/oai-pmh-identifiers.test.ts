/**
 * OAI-PMH identifiers are URIs (OAI-PMH 2.0 §2.4, xs:anyURI in OAI-PMH.xsd); a doc_ID is any
 * string. A doc_ID that is no URI is shown percent-encoded and found again by that form; request
 * arguments of the wrong syntax are badArgument and never echoed (§3.6). Judged by xmllint, the
 * validator the schema tests use.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';
import { runProgram } from '../support/programs.js';
import { isAnyUri, isUriReference, oaiIdentifierOf } from '../../src/protocol/oai-pmh/identifiers.js';
import { escapeXml } from '../../src/protocol/xml-chars.js';

async function oai(node: TestNode, query: string): Promise<{ xml: string }> {
  return { xml: await (await fetch(`${node.url}/OAI-PMH?${query}`)).text() };
}

/** Indexes of the values xmllint refuses as xs:anyURI (one element per line). */
function refusedByXmllint(values: string[]): Set<number> {
  const schema = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType><xs:sequence><xs:element name="u" type="xs:anyURI" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element></xs:schema>';
  const xml = `<r>\n${values.map((value) => `<u>${escapeXml(value)}</u>`).join('\n')}\n</r>`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anyuri-'));
  fs.writeFileSync(path.join(dir, 's.xsd'), schema);
  const result = runProgram('xmllint', 'xmllint', ['--noout', '--nonet', '--schema', path.join(dir, 's.xsd'), '-'], xml);
  fs.rmSync(dir, { recursive: true });
  return new Set([...`${result.stdout}${result.stderr}`.matchAll(/^-:(\d+): /gm)].map((match) => Number(match[1]) - 2));
}

const AWKWARD = ['[x', '%zz', '%', 'a%2', '#a#b', 'urn:x:G]]>&<"\'', 'http://x/a[1]', 'x:[', 'a]', '1a:b', ':abc', '-x:y', 'a@b:c', 'urn:x:[a]', 'a:[b]'];
const FINE = ['a b', 'urn:x:\u00e9', 'a|b', 'a{b}', 'urn:uuid:1', 'a%20b', 'x#a', 'x?a?b', 'a//b', '//host', 'http://[::1]/x', 'a:b', 'mailto:a@b', 'oai:host:123', 'doc-1'];

describe('OAI-PMH identifiers', function () {
  this.timeout(120000);

  it('isAnyUri never calls valid what xmllint refuses, and the encoded form of any doc_ID is valid', () => {
    const generated = fc.sample(fc.string({ unit: fc.constantFrom(...'ab:/?#[]@%20Zz .-_~!$&\'()*+,;=<>"{}|\\^`\u00e9'.split('')), maxLength: 12 }), { numRuns: 400, seed: 14 });
    const values = [...AWKWARD, ...FINE, ...generated];
    const refused = refusedByXmllint(values);
    const wrong = values.filter((value, i) => isAnyUri(value) && refused.has(i));
    expect(wrong, 'valid to us, refused by xmllint').to.deep.equal([]);
    for (const value of AWKWARD) expect(isAnyUri(value), value).to.equal(false);
    for (const value of FINE) expect(isAnyUri(value), value).to.equal(true);
    const encoded = values.map(oaiIdentifierOf);
    expect([...refusedByXmllint(encoded)].map((i) => encoded[i])).to.deep.equal([]);
    // OAI-PMH 2.0 §2.4 asks for the URI syntax itself, which xs:anyURI does not (it takes `a b`).
    expect(encoded.filter((identifier) => !isUriReference(identifier))).to.deep.equal([]);
    // RFC 3986 §2: no other character stands in a URI (ajv's pattern took `"`, so `odd"q'` was shown as it is).
    const uriCharacters = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
    expect(values.filter((value) => isUriReference(value) && !uriCharacters.test(value))).to.deep.equal([]);
    expect(oaiIdentifierOf('odd"q\'')).to.equal('odd%22q\'');
    expect(values.filter((value, i) => decodeURIComponent(encoded[i] as string) !== value && encoded[i] !== value)).to.deep.equal([]);
    // One identifier, one doc_ID (§2.4): shown as it is only without `%`, and decoding an identifier with `%` gives its doc_ID.
    const distinct = [...new Set([...values, 'doc pct', 'doc%20pct', 'a b', 'a%20b', '%', '%25'])];
    const identifiers = distinct.map(oaiIdentifierOf);
    expect(new Set(identifiers).size).to.equal(distinct.length);
    expect(distinct.filter((value, i) => ((identifiers[i] as string).includes('%') ? decodeURIComponent(identifiers[i] as string) : identifiers[i]) !== value)).to.deep.equal([]);
  });

  describe('through the node', () => {
    let node: TestNode;
    const ids = ['[x', 'urn:x:G]]>&<"\'', '1a:b', 'a b', 'http://x/a[1]', 'a%5Bx', 'urn:x:\u00e9 2%', 'doc pct', 'doc%20pct'];
    before(async () => {
      node = await startTestNode();
      await addAccount(node, 'alice', 'alice-password-1');
      const docs = nsdlDocs(ids.length).map((doc, i) => ({ ...doc, doc_ID: ids[i] }) as Doc);
      const { body } = await postJson(`${node.url}/publish`, { documents: docs }, { authorization: basicAuth('alice', 'alice-password-1') });
      expect((body.document_results as { OK: boolean }[]).every((result) => result.OK), JSON.stringify(body)).to.equal(true);
    });
    after(async () => node?.stop());

    it('lists every doc_ID, the ones that are no URI percent-encoded, in a page valid against the schema', async () => {
      const { xml } = await oai(node, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
      assertValidOai(xml, 'official');
      const shown = [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => (m[1] as string).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"'));
      expect(shown.sort()).to.deep.equal(ids.map(oaiIdentifierOf).sort());
      // Only what makes no URI is escaped where that is enough (a space, non-ASCII, and then `%`).
    expect(shown).to.include.members(['%5Bx', 'urn%3Ax%3AG%5D%5D%3E%26%3C%22\'', '1a%3Ab', 'a%20b', 'a%255Bx', 'urn:x:%C3%A9%202%25', 'doc%20pct', 'doc%2520pct']);
    });

    it('GetRecord finds a doc_ID by its identifier, each record by its own; a doc_ID an earlier version showed as it is, by that text too', async () => {
      for (const id of ['[x', '1a:b', 'http://x/a[1]', 'a b', 'urn:x:\u00e9 2%', 'doc pct', 'doc%20pct', 'a%5Bx']) {
        const { xml } = await oai(node, `verb=GetRecord&metadataPrefix=oai_dc&by_doc_ID=T&identifier=${encodeURIComponent(oaiIdentifierOf(id))}`);
        assertValidOai(xml, 'extension');
        expect(xml, id).to.include(`<identifier>${escapeXml(oaiIdentifierOf(id))}</identifier>`);
      }
      // Earlier versions showed the doc_ID a%5Bx as it is; no record has that identifier now (a[x would), so it finds a%5Bx.
      const literal = await oai(node, `verb=GetRecord&metadataPrefix=oai_dc&by_doc_ID=T&identifier=${encodeURIComponent('a%5Bx')}`);
      expect([...literal.xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1])).to.deep.equal(['a%255Bx']);
    });

    it('an identifier or set of the wrong syntax is badArgument, with nothing echoed', async () => {
      for (const query of ['verb=GetRecord&metadataPrefix=oai_dc&identifier=%5Bx', 'verb=ListMetadataFormats&identifier=%25zz', 'verb=ListRecords&metadataPrefix=oai_dc&set=a%20b']) {
        const { xml } = await oai(node, query);
        assertValidOai(xml, 'official');
        expect(xml, query).to.match(/<error code="badArgument">/);
        expect(xml, query).to.match(/<request>[^<]*<\/request>/);
      }
      const { xml } = await oai(node, 'verb=ListRecords&metadataPrefix=oai_dc&set=math:algebra');
      expect(xml).to.match(/<error code="noSetHierarchy">/);
    });

    it('tabs and line ends in an echoed argument are character references, so they survive attribute normalisation', async () => {
      const { xml } = await oai(node, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent('no\tsuch\nid')}`);
      assertValidOai(xml, 'official');
      expect(xml).to.match(/<error code="idDoesNotExist">/);
      expect(xml).to.include('identifier="no&#9;such&#10;id"');
    });
  });
});
