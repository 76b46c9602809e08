/**
 * Crosswalks to oai_dc from XML payloads: nsdl_dc (a superset of DC: its dc:* elements are
 * taken as they are, its dcterms:* refinements folded into the DC element they refine, DCMI
 * "dumb-down" rule) and IEEE LOM XML (the LOM to unqualified DC mapping of IEEE 1484.12.1,
 * annex B, for the elements it names). The input is a fragment already checked well-formed.
 */
import { SaxesParser } from 'saxes';
import { create } from 'xmlbuilder2';
import { addValues, isDcElement, type DcElement, type DcRecord } from './oai-dc.js';

const DC_NS = 'http://purl.org/dc/elements/1.1/';
const DCTERMS_NS = 'http://purl.org/dc/terms/';
export const LOM_NS = 'http://ltsc.ieee.org/xsd/LOM';

/** dcterms refinements and the DC element each refines (DCMI Metadata Terms). */
export const REFINES: Readonly<Record<string, DcElement>> = {
  alternative: 'title', abstract: 'description', tableOfContents: 'description', created: 'date', issued: 'date', modified: 'date',
  available: 'date', dateCopyrighted: 'date', valid: 'date', extent: 'format', medium: 'format', isPartOf: 'relation', hasPart: 'relation',
  isVersionOf: 'relation', hasVersion: 'relation', references: 'relation', isReferencedBy: 'relation', requires: 'relation', conformsTo: 'relation',
  spatial: 'coverage', temporal: 'coverage', accessRights: 'rights', license: 'rights', bibliographicCitation: 'identifier',
  educationLevel: 'subject', audience: 'subject',
};

type Node = { nodeType: number; namespaceURI: string | null; localName: string | null; textContent: string | null; childNodes: ArrayLike<Node> };

function rootOf(xml: string): Node | undefined {
  try {
    return create(xml).root().node as unknown as Node;
  } catch {
    return undefined;
  }
}

const children = (node: Node): Node[] => Array.from(node.childNodes).filter((child) => child.nodeType === 1);
const text = (node: Node): string => node.textContent ?? '';

/** The DC element a child of the record's root maps to, if any: dc:* as it is, dcterms:* as itself or the element it refines. */
function dcElementOf(uri: string, local: string): DcElement | undefined {
  if ((uri === DC_NS || uri === DCTERMS_NS) && isDcElement(local)) return local;
  // Own keys only: a dcterms:constructor is no refinement.
  return uri === DCTERMS_NS && Object.hasOwn(REFINES, local) ? REFINES[local] : undefined;
}

/**
 * The DC of an nsdl_dc (or any DC-bearing) record: its dc:* and dcterms:* children, each with its
 * text content (descendant text and CDATA, as DOM textContent). One streaming pass with saxes, as
 * the well-formedness check makes: building the record's DOM (xmlbuilder2) cost ~330 µs per 4 KB
 * record, most of the node's work on an oai_dc ListRecords page of such records.
 */
export function dcFromDcXml(xml: string): DcRecord | undefined {
  const record: DcRecord = {};
  const parser = new SaxesParser({ xmlns: true });
  let depth = 0;
  let element: DcElement | undefined;
  let value = '';
  const collect = (text: string): void => { if (element !== undefined) value += text; };
  parser.on('error', (error) => { throw error; });
  parser.on('opentag', (tag) => {
    depth += 1;
    if (depth === 2) { element = dcElementOf(tag.uri, tag.local); value = ''; }
  });
  parser.on('text', collect);
  parser.on('cdata', collect);
  parser.on('closetag', () => {
    if (depth === 2 && element !== undefined) addValues(record, element, [value]);
    if (depth === 2) element = undefined;
    depth -= 1;
  });
  try {
    parser.write(xml).close();
  } catch {
    return undefined;
  }
  return record;
}

/** Descendants of `node` along a path of LOM local names. */
function at(node: Node, path: string[]): Node[] {
  let current = [node];
  for (const name of path) current = current.flatMap((n) => children(n).filter((c) => c.namespaceURI === LOM_NS && c.localName === name));
  return current;
}

const strings = (nodes: Node[]): string[] => nodes.flatMap((n) => {
  const langStrings = at(n, ['string']);
  return langStrings.length > 0 ? langStrings.map(text) : [text(n)];
});

/** vCard FN of a LOM entity, or the entity text when it is no vCard. */
// Ours: one property line is read; no vCard parser is among our dependencies.
function entityName(entity: string): string {
  const fn = /^FN[^:]*:(.*)$/im.exec(entity);
  return (fn?.[1] ?? entity).trim();
}

/** IEEE LOM XML to DC (IEEE 1484.12.1 annex B, "Mapping to Dublin Core"). */
export function dcFromLom(xml: string): DcRecord | undefined {
  const lom = rootOf(xml);
  if (!lom || lom.namespaceURI !== LOM_NS || lom.localName !== 'lom') return undefined;
  const record: DcRecord = {};
  addValues(record, 'identifier', strings(at(lom, ['general', 'identifier', 'entry'])));
  addValues(record, 'title', strings(at(lom, ['general', 'title'])));
  addValues(record, 'language', strings(at(lom, ['general', 'language'])));
  addValues(record, 'description', strings(at(lom, ['general', 'description'])));
  addValues(record, 'subject', strings(at(lom, ['general', 'keyword'])));
  addValues(record, 'coverage', strings(at(lom, ['general', 'coverage'])));
  for (const contribute of at(lom, ['lifeCycle', 'contribute'])) {
    const role = strings(at(contribute, ['role', 'value']))[0]?.trim().toLowerCase();
    const names = strings(at(contribute, ['entity'])).map(entityName);
    addValues(record, role === 'author' ? 'creator' : role === 'publisher' ? 'publisher' : 'contributor', names);
    if (role === 'publisher') addValues(record, 'date', strings(at(contribute, ['date', 'dateTime'])));
  }
  addValues(record, 'format', strings(at(lom, ['technical', 'format'])));
  addValues(record, 'identifier', strings(at(lom, ['technical', 'location'])));
  addValues(record, 'type', strings(at(lom, ['educational', 'learningResourceType', 'value'])));
  addValues(record, 'rights', strings(at(lom, ['rights', 'description'])));
  addValues(record, 'relation', strings(at(lom, ['relation', 'resource', 'identifier', 'entry'])));
  for (const classification of at(lom, ['classification'])) addValues(record, 'subject', strings(at(classification, ['taxonPath', 'taxon', 'entry'])));
  return record;
}
