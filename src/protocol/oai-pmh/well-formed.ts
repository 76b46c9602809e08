/**
 * Checks that stored resource data is one well-formed, namespace-well-formed XML element before
 * it is emitted inside <metadata> (OAI-PMH 2.0 §2.5: metadata is a single well-formed element;
 * spec "OAI-PMH Harvest (XML)": emission that fails is `cannotDisseminateFormat`). The whole
 * response must stay well-formed, so this is done in code for every record, not trusted to a
 * view. Entity references are limited to the five predefined ones and character references
 * (a DOCTYPE is stripped, so nothing else can be defined).
 */
import { INVALID_XML_CHAR, QNAME } from './xml-chars.js';

export type WellFormed =
  | { ok: true; rootNameEnd: number; needsDefaultNamespaceReset: boolean }
  | { ok: false; reason: string };

const PREDEFINED = new Set(['lt', 'gt', 'amp', 'quot', 'apos']);
const REFERENCE = /&(?:([A-Za-z_][\w.-]*)|#([0-9]+)|#x([0-9A-Fa-f]+));/y;
const SPACE = /[ \t\r\n]*/y;

class Malformed extends Error {}

function fail(reason: string): never {
  throw new Malformed(reason);
}

function checkCharRef(code: number): void {
  const ok = code === 0x9 || code === 0xA || code === 0xD || (code >= 0x20 && code <= 0xD7FF) || (code >= 0xE000 && code <= 0xFFFD) || (code >= 0x10000 && code <= 0x10FFFF);
  if (!ok) fail('character reference to a character XML does not allow');
}

/** Text or an attribute value: references must be well-formed and known; `<` only in text is markup. */
function checkCharData(text: string, inAttribute: boolean): void {
  if (INVALID_XML_CHAR.test(text)) fail('a character XML does not allow');
  if (inAttribute && text.includes('<')) fail('"<" in an attribute value');
  if (!inAttribute && text.includes(']]>')) fail('"]]>" in text');
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    REFERENCE.lastIndex = at;
    const match = REFERENCE.exec(text);
    if (!match) fail('a malformed entity reference');
    if (match[1] !== undefined && !PREDEFINED.has(match[1])) fail(`an undefined entity &${match[1]};`);
    if (match[2] !== undefined) checkCharRef(Number.parseInt(match[2], 10));
    if (match[3] !== undefined) checkCharRef(Number.parseInt(match[3], 16));
  }
}

interface Scope { prefixes: Map<string, string> }

function resolvePrefix(scopes: Scope[], prefix: string): string | undefined {
  if (prefix === 'xml') return 'http://www.w3.org/XML/1998/namespace';
  for (let i = scopes.length - 1; i >= 0; i -= 1) {
    const uri = (scopes[i] as Scope).prefixes.get(prefix);
    if (uri !== undefined) return uri;
  }
  return undefined;
}

function prefixOf(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? '' : name.slice(0, colon);
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
  const stack: string[] = [];
  const scopes: Scope[] = [];
  let roots = 0;
  let rootNameEnd = -1;
  let unprefixedWithoutDefault = false;
  let i = 0;
  const readName = (): string => {
    QNAME.lastIndex = i;
    const match = QNAME.exec(xml);
    if (!match) fail(`a malformed name at offset ${i}`);
    i += match[0].length;
    return match[0];
  };
  const skipSpace = (): number => {
    SPACE.lastIndex = i;
    const length = (SPACE.exec(xml) as RegExpExecArray)[0].length;
    i += length;
    return length;
  };
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (text.length > 0) {
      if (stack.length === 0 && text.trim() !== '') fail('text outside the root element');
      checkCharData(text, false);
    }
    if (lt === -1) break;
    i = lt;
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end === -1) fail('an unterminated comment');
      const body = xml.slice(i + 4, end);
      if (body.includes('--') || body.endsWith('-') || INVALID_XML_CHAR.test(body)) fail('a malformed comment');
      i = end + 3;
    } else if (xml.startsWith('<![CDATA[', i)) {
      if (stack.length === 0) fail('CDATA outside the root element');
      const end = xml.indexOf(']]>', i + 9);
      if (end === -1) fail('an unterminated CDATA section');
      if (INVALID_XML_CHAR.test(xml.slice(i + 9, end))) fail('a character XML does not allow');
      i = end + 3;
    } else if (xml.startsWith('<?', i)) {
      i += 2;
      const target = readName();
      if (target.toLowerCase() === 'xml' || target.includes(':')) fail('a misplaced XML declaration or a bad processing instruction');
      const end = xml.indexOf('?>', i);
      if (end === -1) fail('an unterminated processing instruction');
      if (end > i && skipSpace() === 0) fail('a malformed processing instruction');
      i = end + 2;
    } else if (xml.startsWith('<!', i)) {
      fail('a DOCTYPE or declaration inside the data');
    } else if (xml.startsWith('</', i)) {
      i += 2;
      const name = readName();
      skipSpace();
      if (xml[i] !== '>') fail(`a malformed end tag </${name}`);
      i += 1;
      if (stack.pop() !== name) fail(`end tag </${name}> does not match its start tag`);
      scopes.pop();
    } else {
      i += 1;
      if (stack.length === 0 && ++roots > 1) fail('more than one root element');
      const name = readName();
      if (roots === 1 && stack.length === 0) rootNameEnd = i;
      const attributes = new Map<string, string>();
      const scope: Scope = { prefixes: new Map() };
      for (;;) {
        const spaced = skipSpace();
        if (xml.startsWith('/>', i) || xml[i] === '>') break;
        if (i >= xml.length) fail(`an unterminated start tag <${name}`);
        if (spaced === 0) fail(`attributes of <${name}> are not separated by space`);
        const attribute = readName();
        skipSpace();
        if (xml[i] !== '=') fail(`attribute ${attribute} has no value`);
        i += 1;
        skipSpace();
        const quote = xml[i];
        if (quote !== '"' && quote !== '\'') fail(`attribute ${attribute} is not quoted`);
        const end = xml.indexOf(quote, i + 1);
        if (end === -1) fail(`attribute ${attribute} is not terminated`);
        const value = xml.slice(i + 1, end);
        checkCharData(value, true);
        i = end + 1;
        if (attributes.has(attribute)) fail(`attribute ${attribute} appears twice`);
        attributes.set(attribute, value);
        if (attribute === 'xmlns') scope.prefixes.set('', value);
        else if (attribute.startsWith('xmlns:')) {
          const prefix = attribute.slice(6);
          if (value === '' || prefix === 'xmlns' || prefix === 'xml') fail(`a bad namespace declaration ${attribute}`);
          scope.prefixes.set(prefix, value);
        }
      }
      scopes.push(scope);
      const prefix = prefixOf(name);
      if (prefix !== '' && resolvePrefix(scopes, prefix) === undefined) fail(`undeclared namespace prefix ${prefix}`);
      if (prefix === '' && resolvePrefix(scopes, '') === undefined) unprefixedWithoutDefault = true;
      const expanded = new Set<string>();
      for (const attribute of attributes.keys()) {
        const attributePrefix = prefixOf(attribute);
        if (attributePrefix === '' || attributePrefix === 'xmlns') continue;
        const uri = resolvePrefix(scopes, attributePrefix);
        if (uri === undefined) fail(`undeclared namespace prefix ${attributePrefix}`);
        const key = `${uri}|${attribute.slice(attributePrefix.length + 1)}`;
        if (expanded.has(key)) fail(`attribute ${attribute} appears twice`);
        expanded.add(key);
      }
      if (xml.startsWith('/>', i)) {
        i += 2;
        scopes.pop();
      } else {
        i += 1;
        stack.push(name);
      }
    }
  }
  if (stack.length > 0) fail(`element <${stack.at(-1)}> is not closed`);
  if (roots === 0) fail('no root element');
  return { ok: true, rootNameEnd, needsDefaultNamespaceReset: unprefixedWithoutDefault };
}
