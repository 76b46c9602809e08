/**
 * The well-formedness policy of <metadata> fragments (src/protocol/oai-pmh/well-formed.ts) on the
 * edge cases of the W3C XML conformance suite (xmlconf not-wf/sa, valid/sa) and of saxes' own
 * tests, each judged against libxml2's xmllint where xmllint judges the same thing. Pure
 * functions, no server; kept beside the OAI-PMH integration tests as the file layout assigns them.
 */
import { expect } from 'chai';
import { metadataFragment } from '../../src/protocol/oai-pmh/metadata-fragment.js';
import { checkWellFormed } from '../../src/protocol/oai-pmh/well-formed.js';
import { runProgram } from '../support/programs.js';

const xmllintAccepts = (xml: string): boolean => runProgram('xmllint', 'xmllint', ['--noout', '-'], xml).status === 0;

/** XML 1.0 + Namespaces well-formed, one root: accepted by both. */
const wellFormed = [
  '<a></a>', '  <a/>\n', '<!--c--><?pi x?><a/><!--d--><?pi?>\n', '<a b=\'"\' c="\'"/>',
  '<a>&lt;&gt;&amp;&quot;&apos;</a>', '<a>&#x10FFFF;&#9;&#xA;&#xD;&#65;&#x00041;</a>', '<a x="&#x20;&lt;&amp;"/>',
  '<a>]]&gt; ]] ]> ></a>', '<a><![CDATA[]]]]><![CDATA[>]]></a>', '<a><![CDATA[<&>]]></a>', '<a><![CDATA[]]></a>',
  '<a x=">" y="]]>"/>', '<_a/>', '<a.b-c_d/>', '<\u00e9t\u00e9/>', '<a\u0300\u00b7b/>', '<\u{10000}x\u{EFFFF}/>',
  '<a  x = "1"  />', '<a\tx="1"\r\ny="2"\n/>', '<a></a >', '<a>\u{1F600}\uFFFD\uE000\uD7FF</a>',
  '<p:a xmlns:p="urn:p" p:b="1" b="2"/>', '<a xmlns:p="urn:1"><p:b xmlns:p="urn:2"/></a>', '<a xml:space="preserve" xml:lang="en"/>',
  '<a xmlns:xml="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns=""/>', '<a xmlns="urn:a"><b xmlns=""/></a>',
  '<?xml-stylesheet href="a"?><a/>', '<a><?pi  x ?></a>', '<!----><a><!-- - --></a>', '<a>\r\n\t</a>',
];

/** Not well-formed XML: refused by both. */
const notWellFormed = [
  '', ' ', '<!-- only a comment -->', '<a>', '</a>', '<a></a></a>', '<a><b></a></b>', '<a></A>', '<a/><a/>', '<a></a>text',
  'text<a/>', '<![CDATA[x]]><a/>', '<a/><![CDATA[x]]>', '<a/>&amp;', '<a/>&#32;',
  '<a>&#xD800;</a>', '<a>&#xDFFF;</a>', '<a>&#xFFFE;</a>', '<a>&#xFFFF;</a>', '<a>&#x110000;</a>', '<a>&#0;</a>', '<a>&#x1;</a>',
  '<a>&#;</a>', '<a>&#x;</a>', '<a>&#12a;</a>', '<a>&#X41;</a>', '<a>&amp</a>', '<a>& b</a>', '<a>&nbsp;</a>', '<a x="&foo;"/>', '<a>&a:b;</a>',
  '<a>\u0000</a>', '<a>\u001F</a>', '<a>\u0008</a>', '<a>\uFFFE</a>', '<a>\uFFFF</a>', '<a x="\u0001"/>', '<!--\u0001--><a/>',
  '<a><![CDATA[\u0002]]></a>', '<a><?pi \u0003?></a>', '<a/>\u0001',
  '<a x="1" x="1"/>', '<a x/>', '<a x=1/>', '<a x="1/>', '<a x="<"/>', '<a x="1"y="2"/>', '<a x=\'1"/>', '<a / >',
  '<a><!-- a -- b --></a>', '<a><!-- a ---></a>', '<a><!-- x </a>', '<a><![CDATA[x</a>', '<a><![cdata[x]]></a>', '<a>]]></a>',
  '<a><?xml version="1.0"?></a>', '<a/><?xml version="1.0"?>', '<a><? x?></a>', '<a><?pi</a>',
  '<a><!ELEMENT a ANY></a>', '<a><!ENTITY e "x"></a>', '<a><!DOCTYPE a></a>',
  '<1a/>', '<-a/>', '<.a/>', '<\u00b7a/>', '<\u0300a/>', '<a\u00d7/>', '< a/>', '<a></ a>', '<a b="1" \u00d7="2"/>',
];

/** Well-formed XML but not namespace-well-formed (xmllint only warns about these). */
const notNamespaceWellFormed = [
  '<p:a/>', '<a p:x="1"/>', '<a><p:b/></a>', '<a xmlns:p=""/>', '<xmlns:a/>', '<a xmlns:xmlns="urn:x"/>', '<a xmlns:xml="urn:x"/>',
  '<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns="http://www.w3.org/2000/xmlns/"/>',
  '<a xmlns:p="http://www.w3.org/2000/xmlns/"/>', '<a xmlns:p="urn:1" xmlns:q="urn:1" p:x="1" q:x="2"/>',
  '<a b:c:d="1" xmlns:b="urn:b"/>', '<:a/>', '<a:/>', '<a :b="1"/>', '<p:a xmlns:p="urn:p"></p:a><p:b/>', '<a><?p:i x?></a>',
  '<a xmlns:p="urn:p"><b/></a><p:c/>',
];

/** Well-formed documents that are not acceptable data for <metadata> (our policy, not XML's). */
const refusedByPolicy = [
  '<?xml version="1.0"?><a/>', '<!DOCTYPE a><a/>', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', '<a><?XML x?></a>', '<a><?Xml x?></a>',
  '<a>\uD800</a>', '<a>\uD800x</a>', '<a>\uDC00</a>', '<a x="\uDBFF"/>', '<a>\uD800',
];

describe('OAI-PMH metadata well-formedness (XML conformance edge cases)', () => {
  it('accepts what XML 1.0 and Namespaces in XML 1.0 accept, as xmllint does', () => {
    for (const xml of wellFormed) {
      const checked = checkWellFormed(xml);
      expect(checked.ok, `${JSON.stringify(xml)}: ${JSON.stringify(checked)}`).to.equal(true);
      expect(xmllintAccepts(xml), `xmllint on ${JSON.stringify(xml)}`).to.equal(true);
    }
  });
  it('refuses what is not well-formed XML, as xmllint does, with a reason', () => {
    for (const xml of notWellFormed) {
      const checked = checkWellFormed(xml);
      expect(checked.ok, JSON.stringify(xml)).to.equal(false);
      if (!checked.ok) expect(checked.reason, JSON.stringify(xml)).to.be.a('string').and.not.equal('');
      expect(xmllintAccepts(xml), `xmllint on ${JSON.stringify(xml)}`).to.equal(false);
    }
  });
  it('refuses what is not namespace-well-formed', () => {
    for (const xml of notNamespaceWellFormed) expect(checkWellFormed(xml).ok, JSON.stringify(xml)).to.equal(false);
  });
  it('refuses an XML declaration, a DOCTYPE, a PI named xml and a lone surrogate inside the data', () => {
    for (const xml of refusedByPolicy) expect(checkWellFormed(xml).ok, JSON.stringify(xml)).to.equal(false);
  });
  it('puts xmlns="" right after the root name whatever follows it', () => {
    const cases: [string, string][] = [
      ['<a><b/></a>', '<a xmlns=""><b/></a>'],
      ['<a/>', '<a xmlns=""/>'],
      ['<a\tx="1"/>', '<a xmlns=""\tx="1"/>'],
      ['<a\r\n x="1"/>', '<a xmlns=""\r\n x="1"/>'],
      ['<a\ry="1"/>', '<a xmlns=""\ry="1"/>'],
      ['<?pi <x?><\u{10000}b\u00e9 c="&lt;"/>', '<?pi <x?><\u{10000}b\u00e9 xmlns="" c="&lt;"/>'],
      ['<p:a xmlns:p="urn:p"><q:b xmlns:q="urn:q"><c/></q:b></p:a>', '<p:a xmlns="" xmlns:p="urn:p"><q:b xmlns:q="urn:q"><c/></q:b></p:a>'],
    ];
    for (const [input, output] of cases) {
      expect(metadataFragment(input), JSON.stringify(input)).to.deep.equal({ ok: true, xml: output });
      expect(checkWellFormed(`<r xmlns="urn:oai">${output}</r>`).ok, output).to.equal(true);
    }
  });
  it('leaves alone data whose unprefixed elements are all in a declared (or explicitly empty) default namespace', () => {
    for (const xml of ['<a xmlns=""><b/></a>', '<p:a xmlns:p="urn:p"><b xmlns=""><c/></b></p:a>', '<p:a xmlns:p="urn:p"><b xmlns="urn:b"/></p:a>', '<p:a xmlns:p="urn:p"/>']) {
      expect(metadataFragment(xml), xml).to.deep.equal({ ok: true, xml });
    }
  });
});
