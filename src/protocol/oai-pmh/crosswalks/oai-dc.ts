/**
 * Unqualified Dublin Core (oai_dc, OAI-PMH 2.0 §3.4: every item must be available in it) from
 * plain data: the fifteen DC elements, each value escaped, in the order of oai_dc.xsd's choice
 * (any order is valid; a stable one makes records comparable).
 */
import { escapeXml } from '../../xml-chars.js';

export const DC_ELEMENTS = ['title', 'creator', 'subject', 'description', 'publisher', 'contributor', 'date', 'type', 'format', 'identifier', 'source', 'language', 'relation', 'coverage', 'rights'] as const;
export type DcElement = typeof DC_ELEMENTS[number];
export type DcRecord = Partial<Record<DcElement, string[]>>;

const OAI_DC_NS = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const DC_NS = 'http://purl.org/dc/elements/1.1/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export function isDcElement(name: string): name is DcElement {
  return (DC_ELEMENTS as readonly string[]).includes(name);
}

/** Adds trimmed, non-empty values not yet present. */
export function addValues(record: DcRecord, element: DcElement, values: unknown[]): void {
  const list = record[element] ?? [];
  for (const value of values) {
    const text = typeof value === 'string' || typeof value === 'number' ? String(value).replace(/\s+/g, ' ').trim() : '';
    if (text !== '' && !list.includes(text)) list.push(text);
  }
  if (list.length > 0) record[element] = list;
}

export function isEmpty(record: DcRecord): boolean {
  return DC_ELEMENTS.every((element) => (record[element] ?? []).length === 0);
}

export function oaiDcXml(record: DcRecord): string {
  const parts = DC_ELEMENTS.flatMap((element) => (record[element] ?? []).map((value) => `<dc:${element}>${escapeXml(value)}</dc:${element}>`));
  return `<oai_dc:dc xmlns:oai_dc="${OAI_DC_NS}" xmlns:dc="${DC_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${OAI_DC_NS} http://www.openarchives.org/OAI/2.0/oai_dc.xsd">${parts.join('')}</oai_dc:dc>`;
}
