/**
 * Checks that stored resource data is one well-formed, namespace-well-formed XML element before
 * it is emitted inside <metadata> (OAI-PMH 2.0 §2.5: metadata is a single well-formed element;
 * spec "OAI-PMH Harvest (XML)": emission that fails is `cannotDisseminateFormat`). The whole
 * response must stay well-formed, so this is done in code for every record, not trusted to a
 * view.
 *
 * The parsing is saxes' (strict XML 1.0 + Namespaces in XML 1.0: names, attributes, references,
 * comments, CDATA, one root, prefixes bound, no duplicate expanded attribute names). On top of it
 * this module keeps our policy for a fragment that goes inside another document:
 * - no DOCTYPE and no XML declaration (the prolog is stripped before; what is left is data), so
 *   entity references are limited to the five predefined ones and character references;
 * - processing instruction targets: not `xml` in any case (XML 1.0 §2.6), no colon (Namespaces
 *   in XML 1.0 §7);
 * - no lone high surrogate (saxes reads one as half of a pair and lets it through);
 * - where the root's name ends, and whether some unprefixed element has no default namespace in
 *   scope, so the caller can add `xmlns=""` and keep it out of the envelope's namespace;
 * - the root's namespace and local name (an OAI-PMH `metadata` wrapper is unwrapped).
 */
import { SaxesParser } from 'saxes';

export type WellFormed =
  | { ok: true; rootNameEnd: number; needsDefaultNamespaceReset: boolean; rootNamespace: string; rootLocalName: string }
  | { ok: false; reason: string };

/** A high surrogate not followed by a low one (XML 1.0 §2.2 Char has no surrogates). */
const LONE_HIGH_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/;

class Malformed extends Error {}

function fail(reason: string): never {
  throw new Malformed(reason);
}

export function checkWellFormed(xml: string): WellFormed {
  try {
    return scan(xml);
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, reason: error.message };
    throw error;
  }
}

function scan(xml: string): WellFormed {
  if (LONE_HIGH_SURROGATE.test(xml)) fail('a character XML does not allow');
  let unprefixedWithoutDefault = false;
  let rootNameEnd = -1;
  let root: { uri: string; local: string } | undefined;
  const parser = new SaxesParser({
    xmlns: true,
    // Only asked when no declaration in scope binds the prefix; for '' that is an unprefixed
    // element outside any default namespace (an explicit xmlns="" is a binding, so not asked).
    resolvePrefix: (prefix: string) => {
      if (prefix === '') unprefixedWithoutDefault = true;
      return undefined;
    },
  });
  parser.on('error', (error) => fail(error.message));
  parser.on('xmldecl', () => fail('a misplaced XML declaration'));
  parser.on('doctype', () => fail('a DOCTYPE or declaration inside the data'));
  parser.on('processinginstruction', ({ target }) => {
    if (target.toLowerCase() === 'xml' || target.includes(':')) fail('a misplaced XML declaration or a bad processing instruction');
  });
  parser.on('opentagstart', () => {
    if (rootNameEnd !== -1) return;
    // saxes has read the name and the one character after it (space, '>' or '/'; a `\r\n` pair
    // is read as one newline).
    const after = parser.position - 1;
    rootNameEnd = xml[after] === '\n' && xml[after - 1] === '\r' ? after - 1 : after;
  });
  parser.on('opentag', (tag) => { root ??= { uri: tag.uri, local: tag.local }; });
  parser.write(xml).close();
  return { ok: true, rootNameEnd, needsDefaultNamespaceReset: unprefixedWithoutDefault, rootNamespace: root?.uri ?? '', rootLocalName: root?.local ?? '' };
}
