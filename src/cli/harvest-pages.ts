/**
 * One page of a harvest, through Basic Harvest JSON (`/harvest/listrecords`, spec "Basic Harvest")
 * or OAI-PMH 2.0 ListRecords (any provider), as the records lr-node writes: one JSON object a
 * record, `{"header": {identifier, datestamp, status, setSpec?}, "resource_data": {...}}` for
 * Learning Registry documents (the JSON harvest, or OAI-PMH metadata in `lr:resource_data`), and
 * `{"header", "metadata": "<xml>"}` for any other OAI-PMH format.
 */
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { parse as parseContentType } from 'content-type';
import { refusedError } from './errors.js';
import { endpoint, jsonOf, request, type RetryPolicy } from './http-client.js';

export interface HarvestQuery { url: string; via: 'json' | 'oai'; prefix: string; from?: string; until?: string }
export interface HarvestPage { records: Record<string, unknown>[]; token: string | null; total?: number }

const OAI = 'http://www.openarchives.org/OAI/2.0/';
const LR = 'http://www.learningregistry.org/OAI/2.0/';

/** The OAI-PMH base URL: as given, except a node's root URL gets the node's `/OAI-PMH` path. */
export function oaiBaseUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === '/' || parsed.pathname === '' ? endpoint(url, 'OAI-PMH') : url;
}

export function pageUrl(query: HarvestQuery, token: string | null): string {
  const url = new URL(query.via === 'json' ? endpoint(query.url, 'harvest/listrecords') : oaiBaseUrl(query.url));
  const set = (name: string, value: string | undefined): void => { if (value !== undefined) url.searchParams.set(name, value); };
  if (query.via === 'json') {
    if (token) set('resumption_token', token);
    else { set('from', query.from); set('until', query.until); }
  } else {
    set('verb', 'ListRecords');
    if (token) set('resumptionToken', token);
    else { set('metadataPrefix', query.prefix); set('from', query.from); set('until', query.until); }
  }
  return url.toString();
}

/** application/json or an application/…+json type (RFC 6839), whatever its parameters. */
function isJsonType(contentType: string): boolean {
  const { type } = parseContentType(contentType, { parameters: false });
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export async function fetchPage(query: HarvestQuery, token: string | null, policy: RetryPolicy): Promise<HarvestPage> {
  const url = pageUrl(query, token);
  const answer = await request(url, { headers: { accept: query.via === 'json' ? 'application/json' : 'text/xml' } }, policy);
  if (answer.status !== 200) throw refusedError(`HTTP ${answer.status} from ${new URL(query.url).host}: ${answer.text.slice(0, 200).replace(/\s+/g, ' ')}`);
  // A Learning Registry node answers OAI-PMH requests for its JSON metadata prefix as Basic
  // Harvest does, in JSON (spec "OAI-PMH Harvest": "behaves as basic harvest"); any other
  // answer is OAI-PMH XML.
  const json = query.via === 'json' || isJsonType(answer.headers.get('content-type') ?? '');
  return json ? jsonPage(jsonOf(answer, `GET ${new URL(url).pathname}`)) : oaiPage(answer.text);
}

function jsonPage(body: Record<string, unknown>): HarvestPage {
  if (body.OK === false) {
    if (body.error === 'noRecordsMatch') return { records: [], token: null };
    throw refusedError(`the node answered ${String(body.error)}${typeof body.message === 'string' ? `: ${body.message}` : ''}`);
  }
  if (!Array.isArray(body.listrecords)) throw refusedError('the answer has no "listrecords"');
  const records = (body.listrecords as { record?: Record<string, unknown> }[]).map((entry) => entry.record ?? entry);
  const token = typeof body.resumption_token === 'string' && body.resumption_token ? body.resumption_token : null;
  return { records, token };
}

// Direct children only: metadata may hold elements of any namespace, the OAI one included.
const childElements = (parent: Element): Element[] => Array.from(parent.childNodes).filter((n): n is Element => n.nodeType === 1);
const children = (parent: Element, name: string): Element[] => childElements(parent).filter((n) => n.namespaceURI === OAI && n.localName === name);
const childText = (parent: Element, name: string): string | undefined => {
  const found = children(parent, name)[0];
  return found ? (found.textContent ?? '').trim() : undefined;
};

function oaiRecord(record: Element, serializer: XMLSerializer): Record<string, unknown> {
  const header = children(record, 'header')[0];
  if (!header) throw refusedError('an OAI-PMH record without header');
  const sets = children(header, 'setSpec').map((n) => (n.textContent ?? '').trim());
  const out: Record<string, unknown> = {
    header: {
      identifier: childText(header, 'identifier') ?? null,
      datestamp: childText(header, 'datestamp') ?? null,
      status: header.getAttribute('status') === 'deleted' ? 'deleted' : 'active',
      ...(sets.length > 0 ? { setSpec: sets } : {}),
    },
  };
  const metadata = children(record, 'metadata')[0];
  const content = metadata ? childElements(metadata)[0] : undefined;
  if (!content) return out;
  if (content.namespaceURI === LR && content.localName === 'resource_data') {
    try {
      out.resource_data = JSON.parse(content.textContent ?? '');
      return out;
    } catch {
      throw refusedError(`record ${String((out.header as { identifier: unknown }).identifier)}: lr:resource_data is not JSON`);
    }
  }
  out.metadata = serializer.serializeToString(content);
  return out;
}

/** A ListRecords response (OAI-PMH 2.0 section 4.5; errors section 3.6, flow control 3.5). */
export function oaiPage(xml: string): HarvestPage {
  let doc: Document;
  try {
    doc = new DOMParser({ onError: (level, message) => { if (level !== 'warning') throw new Error(message); } }).parseFromString(xml, 'text/xml') as unknown as Document;
  } catch (error) {
    throw refusedError(`the OAI-PMH response is not well-formed XML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const root = doc.documentElement as unknown as Element | null;
  if (!root || root.namespaceURI !== OAI || root.localName !== 'OAI-PMH') throw refusedError('the response is not an OAI-PMH document');
  const errors = children(root, 'error');
  if (errors.length > 0) {
    if (errors.some((e) => e.getAttribute('code') === 'noRecordsMatch')) return { records: [], token: null };
    throw refusedError(`OAI-PMH error ${errors.map((e) => `${e.getAttribute('code') ?? '?'}: ${(e.textContent ?? '').trim()}`).join('; ')}`);
  }
  const serializer = new XMLSerializer();
  const list = children(root, 'ListRecords')[0];
  if (!list) throw refusedError('the OAI-PMH response has no ListRecords');
  const records = children(list, 'record').map((record) => oaiRecord(record, serializer));
  const tokenElement = children(list, 'resumptionToken')[0];
  const token = tokenElement ? (tokenElement.textContent ?? '').trim() || null : null;
  const size = tokenElement?.getAttribute('completeListSize');
  return { records, token, ...(size && /^\d+$/.test(size) ? { total: Number(size) } : {}) };
}
