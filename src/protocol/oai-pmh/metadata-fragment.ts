/**
 * Resource data as an XML fragment for <metadata> (spec "OAI-PMH Harvest (XML)", metadata
 * content by payload_placement): an XML declaration, a DOCTYPE and a byte-order mark are
 * stripped, the rest must be one well-formed element. Unprefixed elements that declared no
 * default namespace get `xmlns=""`, so they do not fall into the OAI-PMH namespace of the
 * envelope around them.
 */
import { createHash } from 'node:crypto';
import { checkWellFormed } from './well-formed.js';
import { isOaiDcRecord, OAI_DC_ROOT } from './oai-dc-shape.js';
import { escapeXml } from '../xml-chars.js';
import { LR_NS, OAI_NS } from './response.js';

/**
 * `wrapped`: the resource data is inside an element of the extension schema (XML in no
 * namespace, see metadataElement; data that is not XML, see resourceDataElement). A failure's
 * `reason` is shown to the harvester; `detail`, when set, is for the log only.
 */
/**
 * `oaiDc`: the fragment is known to be an oai_dc record as its schema defines it
 * (oai-dc-shape.ts). Absent, it is not, or it is not known (a record of an earlier check that did
 * not note it): only an oai_dc payload emitted as oai_dc needs to know, and looks (oai-dc.ts).
 */
export type Fragment = { ok: true; xml: string; wrapped?: true; oaiDc?: true } | { ok: false; reason: string; detail?: string };

const DECLARATION = /^\s*<\?xml\s[^?]*\?>/;

/** Index just after a DOCTYPE that starts at `start` (internal subset and quoted ids included), or -1. */
function doctypeEnd(text: string, start: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = start + 9; i < text.length; i += 1) {
    const c = text[i];
    if (quote) { if (c === quote) quote = undefined; continue; }
    if (c === '"' || c === '\'') quote = c;
    else if (c === '[') depth += 1;
    else if (c === ']') depth -= 1;
    else if (c === '>' && depth <= 0) return i + 1;
  }
  return -1;
}

// Ours: cut as text before saxes runs (it refuses a DOCTYPE); finding the root with saxes would parse each document twice.
export function stripProlog(text: string): string {
  let rest = text.replace(/^\uFEFF/, '').replace(DECLARATION, '');
  for (;;) {
    // trimStart/trimEnd remove exactly what \s matches (ECMA-262 WhiteSpace and LineTerminator);
    // /\s+$/ would try each run of blanks in the text (a publish-time cost per document, issue 19).
    const trimmed = rest.trimStart();
    const comment = /^<!--[\s\S]*?-->/.exec(trimmed);
    if (comment) { rest = trimmed.slice(comment[0].length); continue; }
    if (/^<!DOCTYPE[\s>]/i.test(trimmed)) {
      const end = doctypeEnd(trimmed, 0);
      if (end === -1) return trimmed;
      rest = trimmed.slice(end);
      continue;
    }
    return trimmed.trimEnd();
  }
}

/**
 * What publish's check of inline XML resource data found, kept on the stored document (a
 * node-private field, src/domain/node-private-fields.ts) so that emission does not parse the same
 * text again at every harvest: saxes takes about 0.1 ms for a 4 KB record, which is most of the
 * node's own CPU for a page of ListRecords. `sha256` is of the text it was found for, so a text
 * changed since (an edit made straight in the store) is checked in full again; `rules` names the
 * checks it passed, so a later version that checks more does not trust an older record;
 * `xmlns_reset_at` is where `xmlns=""` goes after the prolog is stripped (-1: nowhere); `oai_dc`,
 * present only when true, that the text is an oai_dc record as its schema defines it (a record
 * written before session 34 does not say, and such a text is checked when it is emitted as oai_dc).
 */
export interface XmlCheckRecord { rules: number; sha256: string; xmlns_reset_at: number; oai_dc?: true }

/** The version of the checks (well-formed.ts and metadataFragment) a record vouches for. */
const XML_CHECK_RULES = 1;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');

/**
 * The fragment as a record's metadata. A root element in no namespace cannot stand there
 * (OAI-PMH.xsd requires `##other`), so it is wrapped, as it is, in `lr:xml_resource_data` of the
 * node's extension schema (OAI-PMH-LR-json.xsd), and the response names that schema.
 * `recorded`: the stored document's XmlCheckRecord, used when it holds for this very text.
 */
export function metadataElement(text: string, recorded?: unknown): Fragment {
  return asMetadataElement(fromRecord(text, recorded) ?? metadataFragment(text));
}

/** metadataElement, and the record of the check for the stored document (none for a failure or an unwrapped OAI-PMH <metadata>). */
export function checkedMetadataElement(text: string): { element: Fragment; record?: XmlCheckRecord } {
  const { fragment, resetAt } = checkedFragment(text, false);
  const element = asMetadataElement(fragment);
  if (resetAt === undefined) return { element };
  return { element, record: { rules: XML_CHECK_RULES, sha256: sha256(text), xmlns_reset_at: resetAt, ...(element.ok && element.oaiDc ? { oai_dc: true as const } : {}) } };
}

function fromRecord(text: string, recorded: unknown): Fragment | undefined {
  if (typeof recorded !== 'object' || recorded === null) return undefined;
  const { rules, sha256: digest, xmlns_reset_at: resetAt, oai_dc: oaiDc } = recorded as Partial<XmlCheckRecord>;
  if (rules !== XML_CHECK_RULES || typeof digest !== 'string' || typeof resetAt !== 'number' || digest !== sha256(text)) return undefined;
  const xml = stripProlog(text);
  if (resetAt === -1) return { ok: true, xml, ...(oaiDc === true ? { oaiDc: true as const } : {}) };
  // A record whose position does not fit the text is not this code's: check in full.
  if (!Number.isInteger(resetAt) || resetAt < 2 || resetAt > xml.length) return undefined;
  return { ok: true, xml: withDefaultNamespaceReset(xml, resetAt) };
}

function asMetadataElement(fragment: Fragment): Fragment {
  if (!fragment.ok) return fragment;
  const root = /^<([^\s/>]+)/.exec(fragment.xml)?.[1] ?? '';
  if (root.includes(':') || !/^<[^\s/>]+ xmlns=""/.test(fragment.xml)) return fragment;
  return { ok: true, xml: `<lr:xml_resource_data xmlns:lr="${LR_NS}">${fragment.xml}</lr:xml_resource_data>`, wrapped: true };
}

/** Markup after optional white space, a byte-order mark or control characters (which XML forbids, so a check reports them). */
export function looksLikeXml(data: string): boolean {
  for (const char of data) {
    if (char === '<') return true;
    if (char.codePointAt(0) as number > 0x20 && char !== '\uFEFF') return false;
  }
  return false;
}

/**
 * Any resource data as a record's metadata (spec "OAI-PMH Harvest (XML)": the service MUST
 * return any resource data whose payload_schema matches the requested format). Text that begins
 * with markup is XML and must be one well-formed element (metadataElement); other resource data
 * is kept as it is in `lr:text_resource_data` of the extension schema: a JSON value as JSON text,
 * text as stored. `recorded`: as for metadataElement.
 */
export function resourceDataElement(data: unknown, recorded?: unknown): Fragment {
  if (typeof data === 'string') return looksLikeXml(data) ? metadataElement(data, recorded) : textElement(data, 'text');
  if (data === undefined || data === null) return { ok: false, reason: 'the document has no resource data' };
  return textElement(JSON.stringify(data), 'json');
}

function textElement(text: string, type: 'json' | 'text'): Fragment {
  return { ok: true, xml: `<lr:text_resource_data xmlns:lr="${LR_NS}" type="${type}">${escapeXml(text)}</lr:text_resource_data>`, wrapped: true };
}

export function metadataFragment(text: string, unwrapped = false): Fragment {
  return checkedFragment(text, unwrapped).fragment;
}

/** `resetAt`: where `xmlns=""` was inserted (-1: nowhere), for a fragment that is the text's own root element. */
function checkedFragment(text: string, unwrapped: boolean): { fragment: Fragment; resetAt?: number } {
  const xml = stripProlog(text);
  const checked = checkWellFormed(xml);
  if (!checked.ok) return { fragment: { ok: false, reason: `the resource data is not well-formed XML: ${checked.reason}` } };
  if (checked.rootNamespace === OAI_NS) {
    // OAI-PMH.xsd allows only ##other inside <metadata>. Records copied from an OAI-PMH response
    // keep its <metadata> wrapper (the shipped LR paradata sample does): its content is the record.
    const inner = checked.rootLocalName === 'metadata' && !unwrapped ? contentOfWrapper(xml) : undefined;
    return { fragment: inner === undefined ? { ok: false, reason: 'the resource data is in the OAI-PMH namespace' } : metadataFragment(inner, true) };
  }
  const resetAt = checked.needsDefaultNamespaceReset ? checked.rootNameEnd : -1;
  // Only an oai_dc root can be an oai_dc record: the others need no second look.
  const oaiDc = checked.rootNamespace === OAI_DC_ROOT.uri && checked.rootLocalName === OAI_DC_ROOT.local && resetAt === -1 && isOaiDcRecord(xml);
  return { fragment: { ok: true, xml: resetAt === -1 ? xml : withDefaultNamespaceReset(xml, resetAt), ...(oaiDc ? { oaiDc: true as const } : {}) }, ...(unwrapped ? {} : { resetAt }) };
}

const withDefaultNamespaceReset = (xml: string, at: number): string => `${xml.slice(0, at)} xmlns=""${xml.slice(at)}`;

/** A start tag: name, attributes (quoted values may hold '>'), and whether it closes itself. */
const START_TAG = /^<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/;
const NAMESPACE_DECLARATION = /\s(xmlns(?::[^\s=]+)?)\s*=\s*("[^"]*"|'[^']*')/g;

/**
 * The element inside a well-formed wrapper element, with the wrapper's namespace declarations
 * that it does not make itself, so its prefixes stay bound (and an element that was in the
 * wrapper's default namespace stays in it, and is refused as such). Undefined when the wrapper is empty.
 */
function contentOfWrapper(xml: string): string | undefined {
  const start = START_TAG.exec(xml);
  if (!start || start[3] === '/') return undefined;
  const inner = stripProlog(xml.slice(start[0].length, xml.lastIndexOf(`</${start[1] as string}`)));
  const child = START_TAG.exec(inner);
  if (!child) return undefined;
  const own = new Set([...(child[2] ?? '').matchAll(NAMESPACE_DECLARATION)].map((match) => match[1]));
  const carried = [...(start[2] ?? '').matchAll(NAMESPACE_DECLARATION)].filter((match) => !own.has(match[1])).map((match) => ` ${match[1] as string}=${match[2] as string}`).join('');
  const nameEnd = 1 + (child[1] as string).length;
  return `${inner.slice(0, nameEnd)}${carried}${inner.slice(nameEnd)}`;
}
