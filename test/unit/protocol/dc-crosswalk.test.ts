/**
 * The nsdl_dc → oai_dc crosswalk reads the record in one streaming pass
 * (src/protocol/oai-pmh/crosswalks/xml-crosswalks.ts). It must give what a walk over the
 * record's DOM gives (each dc:* or dcterms:* child of the root, by its textContent), which is
 * what it did before: checked here against that DOM walk for the whole NSDL corpus and for the
 * XML constructs that textContent has rules for.
 */
import { expect } from 'chai';
import { create } from 'xmlbuilder2';
import { dcFromDcXml, REFINES } from '../../../src/protocol/oai-pmh/crosswalks/xml-crosswalks.js';
import { addValues, isDcElement, type DcElement, type DcRecord } from '../../../src/protocol/oai-pmh/crosswalks/oai-dc.js';
import { metadataElement } from '../../../src/protocol/oai-pmh/metadata-fragment.js';
import { nsdlDocs } from '../../support/documents.js';

const DC_NS = 'http://purl.org/dc/elements/1.1/';
const DCTERMS_NS = 'http://purl.org/dc/terms/';

type DomNode = { nodeType: number; namespaceURI: string | null; localName: string | null; textContent: string | null; childNodes: ArrayLike<DomNode> };

/** The reference: the record's DOM (xmlbuilder2), each element child of the root by its textContent. */
function dcByDom(xml: string): DcRecord {
  const root = create(xml).root().node as unknown as DomNode;
  const record: DcRecord = {};
  for (const child of Array.from(root.childNodes).filter((node) => node.nodeType === 1)) {
    const name = child.localName ?? '';
    const value = [child.textContent ?? ''];
    if ((child.namespaceURI === DC_NS || child.namespaceURI === DCTERMS_NS) && isDcElement(name)) addValues(record, name, value);
    else if (child.namespaceURI === DCTERMS_NS && Object.hasOwn(REFINES, name)) addValues(record, REFINES[name] as DcElement, value);
  }
  return record;
}

const wrap = (body: string): string => `<nsdl_dc:nsdl_dc xmlns:nsdl_dc="http://ns.nsdl.org/nsdl_dc_v1.02/" xmlns:dc="${DC_NS}" xmlns:dcterms="${DCTERMS_NS}" xmlns:x="urn:other">${body}</nsdl_dc:nsdl_dc>`;

describe('the nsdl_dc crosswalk to oai_dc', () => {
  it('gives what the DOM walk gives for every record of the NSDL corpus', () => {
    let compared = 0;
    for (const doc of nsdlDocs(100)) {
      const fragment = metadataElement(doc.resource_data as string);
      if (!fragment.ok) continue;
      expect(dcFromDcXml(fragment.xml), doc.doc_ID as string).to.deep.equal(dcByDom(fragment.xml));
      compared += 1;
    }
    expect(compared).to.be.greaterThan(90);
  });

  const cases: [string, string][] = [
    ['entities and character references', '<dc:title>Fish &amp; chips &#233;t&#xE9; &lt;b&gt;</dc:title>'],
    ['CDATA sections and text around them', '<dc:description>before <![CDATA[<raw> & text]]> after</dc:description>'],
    ['nested elements and comments inside a value', '<dc:subject>Earth <x:em>and</x:em><!-- not text --> space <?pi not text?></dc:subject>'],
    ['dcterms elements and refinements; other namespaces ignored', '<dcterms:abstract>An abstract</dcterms:abstract><dcterms:created>2010</dcterms:created><dcterms:title>Alt</dcterms:title><x:title>Not DC</x:title><dcterms:unknown>no</dcterms:unknown><dcterms:constructor>no</dcterms:constructor><dcterms:toString>no</dcterms:toString>'],
    ['grandchildren named like DC elements are text only', '<x:wrapper><dc:title>Deep title</dc:title></x:wrapper><dc:title>Top</dc:title>'],
    ['empty, self-closing and whitespace-only values, repeated values', '<dc:title/><dc:creator>  </dc:creator><dc:subject>a\n  b</dc:subject><dc:subject>a b</dc:subject>'],
    ['a default namespace for DC', '<title xmlns="http://purl.org/dc/elements/1.1/">Unprefixed</title>'],
  ];
  for (const [name, body] of cases) {
    it(`gives what the DOM walk gives: ${name}`, () => {
      const xml = wrap(body);
      const streamed = dcFromDcXml(xml);
      expect(streamed).to.deep.equal(dcByDom(xml));
      expect(streamed).to.not.deep.equal({});
    });
  }

  it('gives no record for XML that is not well-formed', () => {
    expect(dcFromDcXml('<a><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">x</a>')).to.equal(undefined);
  });
});
