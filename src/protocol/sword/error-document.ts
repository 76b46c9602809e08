/**
 * `sword:error` documents (SWORD 1.3 profile section 2.3): an Atom-entry-like element in the
 * SWORD namespace whose `href` is the error URI, with a human-readable `atom:summary`.
 */
import { create } from 'xmlbuilder2';
import { NS } from './namespaces.js';
import { xmlText } from '../xml-chars.js';

export interface ErrorData {
  uri: string;
  summary: string;
  updated: string;
  generator: { uri: string; version: string; name: string };
  userAgent?: string;
  verboseDescription?: string;
}

export function errorDocument(data: ErrorData): string {
  const error = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(NS.sword, 'sword:error', { 'xmlns:atom': NS.atom, href: data.uri });
  error.ele(NS.atom, 'atom:title').txt('ERROR');
  error.ele(NS.atom, 'atom:updated').txt(xmlText(data.updated));
  error.ele(NS.atom, 'atom:generator', { uri: data.generator.uri, version: data.generator.version }).txt(xmlText(data.generator.name));
  error.ele(NS.atom, 'atom:summary').txt(xmlText(data.summary));
  error.ele(NS.sword, 'sword:treatment').txt('processing failed: nothing was stored');
  if (data.userAgent) error.ele(NS.sword, 'sword:userAgent').txt(xmlText(data.userAgent));
  if (data.verboseDescription) error.ele(NS.sword, 'sword:verboseDescription').txt(xmlText(data.verboseDescription));
  return error.end({ prettyPrint: true });
}
