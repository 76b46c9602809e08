/**
 * The oai_dc shape the XML check notes (src/protocol/oai-pmh/oai-dc-shape.ts) says what
 * xmllint says against oai_dc.xsd, for records that are oai_dc and for what only looks like it.
 */
import path from 'node:path';
import { expect } from 'chai';
import { checkWellFormed } from '../../../src/protocol/oai-pmh/well-formed.js';
import { isOaiDcRecord } from '../../../src/protocol/oai-pmh/oai-dc-shape.js';
import { checkedMetadataElement } from '../../../src/protocol/oai-pmh/metadata-fragment.js';
import { xmllint } from '../../support/xml.js';
import { ROOT } from '../../support/process.js';

const OAI_DC_XSD = path.join(ROOT, 'test', 'fixtures', 'schemas', 'oai-pmh', 'oai_dc.xsd');
const NS = 'xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"';
const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const record = (inner: string, rootAttributes = ''): string => `<oai_dc:dc ${NS}${rootAttributes}>${inner}</oai_dc:dc>`;

const cases: [string, string][] = [
  ['empty', record('')],
  ['every element once', record(['title', 'creator', 'subject', 'description', 'publisher', 'contributor', 'date', 'type', 'format', 'identifier', 'source', 'language', 'relation', 'coverage', 'rights'].map((e) => `<dc:${e}>v</dc:${e}>`).join(''))],
  ['repeated, any order, white space between', record('\n  <dc:subject>a</dc:subject>\n  <dc:title>t</dc:title>\t<dc:subject>b</dc:subject>\r\n')],
  ['xml:lang', record('<dc:title xml:lang="en-GB">t</dc:title><dc:title xml:lang="">u</dc:title><dc:title xml:lang=" fr ">v</dc:title>')],
  ['schemaLocation on the root', record('<dc:title>t</dc:title>', ` ${XSI} xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd"`)],
  ['comments, PIs, CDATA and references in a value', record('<!-- c --><?p x?><dc:title>a &amp; <![CDATA[<b>]]> &#233;</dc:title>')],
  ['other prefixes for the namespaces', '<r:dc xmlns:r="http://www.openarchives.org/OAI/2.0/oai_dc/"><t:title xmlns:t="http://purl.org/dc/elements/1.1/">t</t:title></r:dc>'],
  ['an element DC does not have', record('<dc:bogus>x</dc:bogus>')],
  ['a dcterms element', record('<dcterms:abstract xmlns:dcterms="http://purl.org/dc/terms/">x</dcterms:abstract>')],
  ['a child element in a value', record('<dc:title>a <b xmlns="urn:b">b</b></dc:title>')],
  ['text beside the elements', record('x<dc:title>t</dc:title>')],
  ['a CDATA section of white space beside them', record('<![CDATA[ ]]><dc:title>t</dc:title>')],
  ['another attribute on a value', record('<dc:title type="main">t</dc:title>')],
  ['xsi:type on a value', record(`<dc:title ${XSI} xsi:type="x">t</dc:title>`)],
  ['a bad xml:lang', record('<dc:title xml:lang="english language">t</dc:title><dc:title xml:lang="e_n">u</dc:title>')],
  ['an attribute on the root', record('<dc:title>t</dc:title>', ' version="1"')],
  ['another root', `<oai_dc:record ${NS}><dc:title>t</dc:title></oai_dc:record>`],
  ['the DC namespace on the root', `<dc:dc ${NS}><dc:title>t</dc:title></dc:dc>`],
  ['no namespace', '<dc><title>t</title></dc>'],
  ['DC elements in no namespace', `<oai_dc:dc ${NS}><title>t</title></oai_dc:dc>`],
];

describe('oai_dc shape (oai-dc-shape.ts) against oai_dc.xsd', () => {
  for (const [name, xml] of cases) {
    it(name, () => {
      const checked = checkWellFormed(xml);
      expect(checked.ok, JSON.stringify(checked)).to.equal(true);
      const valid = xmllint(xml, OAI_DC_XSD);
      expect(isOaiDcRecord(xml), `${xml}\nxmllint: ${valid.output}`).to.equal(valid.ok);
      // What publish's check notes on the stored document (XmlCheckRecord.oai_dc).
      expect(checkedMetadataElement(xml).record?.oai_dc === true, xml).to.equal(valid.ok);
    });
  }
  it('the cases hold records of both kinds', () => {
    const kinds = new Set(cases.map(([, xml]) => xmllint(xml, OAI_DC_XSD).ok));
    expect([...kinds].sort()).to.deep.equal([false, true]);
  });
});
