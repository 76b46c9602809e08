/**
 * Resource data as an XML fragment for <metadata> (spec "OAI-PMH Harvest (XML)", metadata
 * content by payload_placement): an XML declaration, a DOCTYPE and a byte-order mark are
 * stripped, the rest must be one well-formed element. Unprefixed elements that declared no
 * default namespace get `xmlns=""`, so they do not fall into the OAI-PMH namespace of the
 * envelope around them.
 */
import { checkWellFormed } from './well-formed.js';
import { LR_NS } from './response.js';

/**
 * `wrapped`: the element is in no namespace and was wrapped (see metadataElement). A failure's
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

export function metadataFragment(text: string): Fragment {
  const xml = stripProlog(text);
  const checked = checkWellFormed(xml);
  if (!checked.ok) return { ok: false, reason: `the resource data is not well-formed XML: ${checked.reason}` };
  if (!checked.needsDefaultNamespaceReset) return { ok: true, xml };
  return { ok: true, xml: `${xml.slice(0, checked.rootNameEnd)} xmlns=""${xml.slice(checked.rootNameEnd)}` };
}
