/**
 * Metadata fragments (src/protocol/oai-pmh): what may be put inside <metadata>. Pure functions,
 * no server; kept beside the OAI-PMH integration tests as the file layout assigns them.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { checkedMetadataElement, metadataElement, metadataFragment, stripProlog } from '../../src/protocol/oai-pmh/metadata-fragment.js';
import { checkWellFormed } from '../../src/protocol/oai-pmh/well-formed.js';
import { xmlText } from '../../src/protocol/xml-chars.js';
import { runProgram } from '../support/programs.js';

const good = [
  '<a/>', '<a:b xmlns:a="urn:a"><a:c x="1" a:y=\'2\'>t &amp; &#60; &#x3C; <![CDATA[<x>]]></a:c><!-- c --><?pi data?></a:b>',
  '<r xmlns="urn:r"><s/></r>', '<x:r xmlns:x="urn:x" xml:lang="en"/>', '<a>\u00e9\u{1F600}</a>',
];
const bad = [
  '', 'text', '<a>', '<a></b>', '<a/><b/>', '<a>&foo;</a>', '<a>&#0;</a>', '<a x=1/>', '<a x="1" x="2"/>', '<p:a/>',
  '<a p:x="1"/>', '<a xmlns:p="urn:1" xmlns:q="urn:1" p:x="1" q:x="2"/>', '<a>]]></a>', '<a x="<"/>', '<!DOCTYPE a><a/>',
  '<a><!-- a -- b --></a>', '<a>\u0001</a>', '<?xml version="1.0"?><a/>', '<a><</a>', '<1a/>', 'x<a/>', '<a/>x', '<a b="1"c="2"/>',
];

describe('OAI-PMH metadata fragments', () => {
  it('accepts well-formed, namespace-well-formed single elements (agreeing with xmllint)', () => {
    for (const xml of good) {
      expect(checkWellFormed(xml).ok, xml).to.equal(true);
      expect(runProgram('xmllint', 'xmllint', ['--noout', '-'], xml).status, xml).to.equal(0);
    }
  });
  it('refuses everything else (agreeing with xmllint where xmllint judges the same thing)', () => {
    for (const xml of bad) {
      expect(checkWellFormed(xml).ok, xml).to.equal(false);
      // xmllint only warns about namespace errors, and a prolog is fine to it (it is not a fragment).
      const namespaced = xml.includes(':') && !xml.includes('<!--');
      if (!namespaced && !xml.startsWith('<!DOCTYPE') && !xml.startsWith('<?xml')) expect(runProgram('xmllint', 'xmllint', ['--noout', '-'], xml).status, xml).to.not.equal(0);
    }
  });
  it('strips a BOM, the XML declaration, comments before the root and a DOCTYPE with an internal subset', () => {
    expect(stripProlog('\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- x -->\n<!DOCTYPE a SYSTEM "a>b.dtd" [<!ENTITY e "]>">]>\n<a/>\n')).to.equal('<a/>');
    expect(metadataFragment('<?xml version="1.0"?><!DOCTYPE a><a/>')).to.deep.equal({ ok: true, xml: '<a xmlns=""/>' });
  });
  it('unprefixed elements without a default namespace get xmlns="" so they stay out of the OAI namespace', () => {
    expect(metadataFragment('<p:a xmlns:p="urn:p"><b/></p:a>')).to.deep.equal({ ok: true, xml: '<p:a xmlns="" xmlns:p="urn:p"><b/></p:a>' });
    expect(metadataFragment('<a xmlns="urn:a"><b/></a>')).to.deep.equal({ ok: true, xml: '<a xmlns="urn:a"><b/></a>' });
  });
  it('an OAI-PMH <metadata> wrapper is unwrapped, its namespace declarations kept where used; other OAI-namespace roots are refused', () => {
    const OAI = 'http://www.openarchives.org/OAI/2.0/';
    expect(metadataFragment(`<metadata xmlns="${OAI}" xmlns:q="urn:q">\n<!-- c --><x xmlns="urn:x" q:a="1"/>\n</metadata>`)).to.deep.equal({ ok: true, xml: '<x xmlns:q="urn:q" xmlns="urn:x" q:a="1"/>' });
    expect(metadataFragment(`<o:metadata xmlns:o="${OAI}"><p:x xmlns:p="urn:p" a=">"><y/></p:x></o:metadata>`)).to.deep.equal({ ok: true, xml: `<p:x xmlns="" xmlns:o="${OAI}" xmlns:p="urn:p" a=">"><y/></p:x>` });
    for (const xml of [`<metadata xmlns="${OAI}"/>`, `<metadata xmlns="${OAI}"><x/></metadata>`, `<record xmlns="${OAI}"/>`, `<metadata xmlns="${OAI}"><metadata><x xmlns="urn:x"/></metadata></metadata>`]) {
      expect(metadataFragment(xml).ok, xml).to.equal(false);
    }
  });
  it('entity declared in a stripped DOCTYPE cannot be used', () => {
    expect(metadataFragment('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>').ok).to.equal(false);
  });
  it('with the record of its check, a text gives the same element without a parse; a record for another text or of other rules is not used', () => {
    const OAI = 'http://www.openarchives.org/OAI/2.0/';
    const wrapper = `<metadata xmlns="${OAI}"><x xmlns="urn:x"/></metadata>`;
    const texts = [...good, '\uFEFF<?xml version="1.0"?>\n<!DOCTYPE a><a/>\n', '<p:a xmlns:p="urn:p"><b/></p:a>', '<a\r\nb="1"><c/></a>', '<a/>', wrapper];
    for (const text of texts) {
      const { element, record } = checkedMetadataElement(text);
      expect(element, text).to.deep.equal(metadataElement(text));
      // An unwrapped OAI-PMH <metadata> is checked at every emission: its record would have to describe two texts.
      if (text === wrapper) { expect(record).to.equal(undefined); continue; }
      expect(record, text).to.include({ rules: 1 });
      expect(metadataElement(text, record), text).to.deep.equal(element);
    }
    const { record } = checkedMetadataElement('<a/>');
    expect(metadataElement('<a>', record).ok).to.equal(false);
    expect(metadataElement('<a>', { ...record, sha256: checkedMetadataElement('<b/>').record?.sha256 }).ok).to.equal(false);
    expect(metadataElement('<a>', { ...record, rules: 2 }).ok).to.equal(false);
    // Taken at its word only when it fits: a position past the text is checked in full.
    const forBroken = { ...record, sha256: createHash('sha256').update('<a>').digest('base64') };
    expect(metadataElement('<a>', { ...forBroken, xmlns_reset_at: 99 }).ok).to.equal(false);
    expect(metadataElement('<a>', { ...forBroken, xmlns_reset_at: -1 })).to.deep.equal({ ok: true, xml: '<a>' });
    for (const recorded of [null, 'x', { rules: 1 }, { rules: 1, sha256: 1, xmlns_reset_at: -1 }]) expect(metadataElement('<a>', recorded).ok).to.equal(false);
  });
  it('xmlText keeps every & and replaces characters XML cannot carry', () => {
    expect(xmlText('&amp; &foo; \u0001 \uFFFF')).to.equal('&amp;amp; &amp;foo; \uFFFD \uFFFD');
  });
});
