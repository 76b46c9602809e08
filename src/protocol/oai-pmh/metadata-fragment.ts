/**
 * Resource data as an XML fragment for <metadata> (spec "OAI-PMH Harvest (XML)", metadata
 * content by payload_placement): an XML declaration, a DOCTYPE and a byte-order mark are
 * stripped, the rest must be one well-formed element. Unprefixed elements that declared no
 * default namespace get `xmlns=""`, so they do not fall into the OAI-PMH namespace of the
 * envelope around them.
 */
import { checkWellFormed } from './well-formed.js';
import { escapeXml } from '../xml-chars.js';
import { LR_NS, OAI_NS } from './response.js';

/**
 * `wrapped`: the resource data is inside an element of the extension schema (XML in no
 * namespace, see metadataElement; data that is not XML, see resourceDataElement). A failure's
 * `reason` is shown to the harvester; `detail`, when set, is for the log only.
 */
export type Fragment = { ok: true; xml: string; wrapped?: true } | { ok: false; reason: string; detail?: string };

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
 * The fragment as a record's metadata. A root element in no namespace cannot stand there
 * (OAI-PMH.xsd requires `##other`), so it is wrapped, as it is, in `lr:xml_resource_data` of the
 * node's extension schema (OAI-PMH-LR-json.xsd), and the response names that schema.
 */
export function metadataElement(text: string): Fragment {
  const fragment = metadataFragment(text);
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
 * text as stored.
 */
export function resourceDataElement(data: unknown): Fragment {
  if (typeof data === 'string') return looksLikeXml(data) ? metadataElement(data) : textElement(data, 'text');
  if (data === undefined || data === null) return { ok: false, reason: 'the document has no resource data' };
  return textElement(JSON.stringify(data), 'json');
}

function textElement(text: string, type: 'json' | 'text'): Fragment {
  return { ok: true, xml: `<lr:text_resource_data xmlns:lr="${LR_NS}" type="${type}">${escapeXml(text)}</lr:text_resource_data>`, wrapped: true };
}

export function metadataFragment(text: string, unwrapped = false): Fragment {
  const xml = stripProlog(text);
  const checked = checkWellFormed(xml);
  if (!checked.ok) return { ok: false, reason: `the resource data is not well-formed XML: ${checked.reason}` };
  if (checked.rootNamespace === OAI_NS) {
    // OAI-PMH.xsd allows only ##other inside <metadata>. Records copied from an OAI-PMH response
    // keep its <metadata> wrapper (the shipped LR paradata sample does): its content is the record.
    const inner = checked.rootLocalName === 'metadata' && !unwrapped ? contentOfWrapper(xml) : undefined;
    return inner === undefined ? { ok: false, reason: 'the resource data is in the OAI-PMH namespace' } : metadataFragment(inner, true);
  }
  if (!checked.needsDefaultNamespaceReset) return { ok: true, xml };
  return { ok: true, xml: `${xml.slice(0, checked.rootNameEnd)} xmlns=""${xml.slice(checked.rootNameEnd)}` };
}

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
