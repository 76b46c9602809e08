/**
 * Renders an OAI-PMH 2.0 response from plain data: the envelope with xmlbuilder2's callback
 * builder (every text and attribute through xmlText, characters XML cannot carry replaced), the
 * records as escaped strings (see recordXml) inserted where a placeholder comment stands:
 * xmlbuilder2 has no raw-markup node, and the placeholders are the only comments the builder
 * writes, so nothing user-supplied can forge one.
 *
 * xsi:schemaLocation names the official schema, or the node's extension schema when the
 * response uses an extension of the spec ("OAI-PMH Harvest (XML)"): the by_doc_ID /
 * by_resource_ID arguments, several GetRecord records, a metadata format without a known schema
 * or namespace, JSON metadata (the JSON metadataPrefix), inline XML in no namespace (wrapped in
 * lr:xml_resource_data), or a resumed list that ends with no
 * record (its last records were deleted after the token was issued).
 */
import { createCB } from 'xmlbuilder2';
import type { XMLBuilderCB } from 'xmlbuilder2/lib/interfaces.js';
import { escapeXml, xmlText } from '../xml-chars.js';
import {
  LR_NS, OAI_NS, OAI_SCHEMA,
  type OaiBody, type OaiHeader, type OaiIdentify, type OaiRecord, type OaiResponse, type OaiToken,
} from './response.js';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

function usesExtension(response: OaiResponse): boolean {
  const attributes = response.request.attributes ?? {};
  if ('by_doc_ID' in attributes || 'by_resource_ID' in attributes) return true;
  const { body } = response;
  if (body.kind === 'GetRecord' && body.records.length > 1) return true;
  if (body.kind === 'ListMetadataFormats' && body.formats.some((f) => f.metadataNamespace === undefined)) return true;
  // A resumed list whose remaining records were deleted meanwhile ends with no record and an empty token.
  if (body.kind === 'ListRecords' && body.records.length === 0) return true;
  if (body.kind === 'ListIdentifiers') return body.headers.length === 0;
  if (body.kind === 'GetRecord' || body.kind === 'ListRecords') return body.records.some((r) => r.metadata !== undefined && ('json' in r.metadata || r.metadata.wrapped === true));
  return false;
}

type Writer = XMLBuilderCB;

/** A leaf element with text. */
function leaf(w: Writer, name: string, text: string, attributes: Record<string, string> = {}): void {
  w.ele(name, attributes).txt(xmlText(text)).up();
}

/**
 * Records are the hot path (a page holds up to doc_limit of them): each is written as a string
 * from the same plain data, every value through escapeXml, and put where the builder wrote its
 * placeholder comment. Through the builder a page of 100 records cost ~16 ms, most of a page's
 * time over the raw view read (bench/harvest.ts).
 */
function headerXml(data: OaiHeader): string {
  return `<header${data.deleted ? ' status="deleted"' : ''}><identifier>${escapeXml(data.identifier)}</identifier><datestamp>${escapeXml(data.datestamp)}</datestamp></header>`;
}

function recordXml(record: OaiRecord): string {
  const header = headerXml(record.header);
  if (!record.metadata) return `<record>${header}</record>`;
  // JSON.stringify escapes controls; escapeXml catches U+FFFE/U+FFFF.
  const metadata = 'xml' in record.metadata
    ? record.metadata.xml
    : `<lr:resource_data xmlns:lr="${LR_NS}">${escapeXml(JSON.stringify(record.metadata.json))}</lr:resource_data>`;
  return `<record>${header}<metadata>${metadata}</metadata></record>`;
}

/** A placeholder the builder writes; replaced by the string after serialization. */
function placeholder(w: Writer, fragments: string[], xml: string): void {
  w.com(`lr-raw-${fragments.length}`);
  fragments.push(xml);
}

/** One placeholder for the whole list: each comment is a DOM node in the builder (~27 µs apiece). */
function records(w: Writer, list: OaiRecord[], fragments: string[]): void {
  if (list.length > 0) placeholder(w, fragments, list.map(recordXml).join(''));
}

function token(w: Writer, data: OaiToken | undefined): void {
  if (!data) return;
  const attributes: Record<string, string> = { cursor: String(data.cursor) };
  if (data.completeListSize !== undefined) attributes.completeListSize = String(data.completeListSize);
  if (data.expirationDate !== undefined) attributes.expirationDate = data.expirationDate;
  w.ele('resumptionToken', attributes);
  // The last page: an empty <resumptionToken .../> (OAI-PMH 2.0 §3.5).
  if (data.value !== '') w.txt(xmlText(data.value));
  w.up();
}

function identifyBody(w: Writer, identify: OaiIdentify): void {
  w.ele('Identify');
  leaf(w, 'repositoryName', identify.repositoryName);
  leaf(w, 'baseURL', identify.baseURL);
  leaf(w, 'protocolVersion', '2.0');
  for (const email of identify.adminEmails) leaf(w, 'adminEmail', email);
  leaf(w, 'earliestDatestamp', identify.earliestDatestamp);
  leaf(w, 'deletedRecord', identify.deletedRecord);
  leaf(w, 'granularity', identify.granularity);
  for (const encoding of identify.compression) leaf(w, 'compression', encoding);
  w.up();
}

function body(w: Writer, data: OaiBody, fragments: string[]): void {
  switch (data.kind) {
    case 'error':
      for (const error of data.errors) leaf(w, 'error', error.message, { code: error.code });
      return;
    case 'Identify':
      identifyBody(w, data.identify);
      return;
    case 'ListMetadataFormats':
      w.ele('ListMetadataFormats');
      for (const format of data.formats) {
        w.ele('metadataFormat');
        leaf(w, 'metadataPrefix', format.metadataPrefix);
        leaf(w, 'schema', format.schema);
        if (format.metadataNamespace !== undefined) leaf(w, 'metadataNamespace', format.metadataNamespace);
        w.up();
      }
      w.up();
      return;
    case 'ListSets':
      w.ele('ListSets').up();
      return;
    case 'GetRecord':
      w.ele('GetRecord');
      records(w, data.records, fragments);
      w.up();
      return;
    case 'ListRecords':
      w.ele('ListRecords');
      records(w, data.records, fragments);
      token(w, data.token);
      w.up();
      return;
    case 'ListIdentifiers':
      w.ele('ListIdentifiers');
      if (data.headers.length > 0) placeholder(w, fragments, data.headers.map(headerXml).join(''));
      token(w, data.token);
      w.up();
      return;
  }
}

/**
 * Written directly: tabs and line ends in an echoed argument must be character references, or
 * attribute-value normalisation turns them into spaces (XML 1.0 §3.3.3), and xmlbuilder2 writes
 * no character references in attributes.
 */
function requestXml(request: OaiResponse['request']): string {
  const attributes = Object.entries(request.attributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeXml(value).replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`)}"`).join('');
  return `<request${attributes}>${escapeXml(request.baseURL)}</request>`;
}

export function renderOaiResponse(response: OaiResponse): string {
  const schema = usesExtension(response) ? response.extensionSchema : OAI_SCHEMA;
  const parts: string[] = [];
  const w = createCB({ data: (chunk: string) => { parts.push(chunk); }, prettyPrint: false });
  w.dec({ version: '1.0', encoding: 'UTF-8' });
  w.ele(OAI_NS, 'OAI-PMH', { 'xmlns:xsi': XSI, 'xsi:schemaLocation': xmlText(`${OAI_NS} ${schema}`) });
  leaf(w, 'responseDate', response.responseDate);
  const fragments: string[] = [];
  placeholder(w, fragments, requestXml(response.request));
  body(w, response.body, fragments);
  w.up();
  w.end();
  const xml = parts.join('');
  return fragments.length === 0 ? xml : xml.replace(/<!--lr-raw-(\d+)-->/g, (_match, index: string) => fragments[Number(index)] ?? '');
}
