/**
 * The deposit receipt: an Atom entry (SWORD 1.3 profile section 2.2; RFC 4287 section 4.1.2)
 * with `sword:treatment`, `atom:generator`, the doc_ID, and a content link to obtain the
 * document. A no-op deposit (X-No-Op) stored nothing, so it carries no content link.
 */
import { create } from 'xmlbuilder2';
import { NS } from './namespaces.js';
import { xmlText } from '../xml-chars.js';

export interface ReceiptData {
  /** An IRI identifying the deposit (atom:id). */
  id: string;
  docId: string;
  updated: string;
  /** The authenticated account (atom:author) and, for a mediated deposit, the owner (atom:contributor). */
  author: string;
  onBehalfOf?: string;
  /** Where the stored document can be obtained; absent for a no-op deposit. */
  obtainUrl?: string;
  generator: { uri: string; version: string; name: string };
  treatment: string;
  noOp: boolean;
  verboseDescription?: string;
  userAgent?: string;
}

export function depositReceipt(data: ReceiptData): string {
  const entry = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS.atom, 'entry', { 'xmlns:sword': NS.sword });
  entry.ele(NS.atom, 'title').txt(xmlText(`Resource data description document ${data.docId}`));
  entry.ele(NS.atom, 'id').txt(xmlText(data.id));
  entry.ele(NS.atom, 'updated').txt(xmlText(data.updated));
  entry.ele(NS.atom, 'author').ele(NS.atom, 'name').txt(xmlText(data.author));
  if (data.onBehalfOf) entry.ele(NS.atom, 'contributor').ele(NS.atom, 'name').txt(xmlText(data.onBehalfOf));
  entry.ele(NS.atom, 'summary', { type: 'text' }).txt(xmlText(data.docId));
  if (data.obtainUrl) {
    entry.ele(NS.atom, 'content', { type: 'application/json', src: data.obtainUrl });
    entry.ele(NS.atom, 'link', { rel: 'alternate', type: 'application/json', href: data.obtainUrl });
  } else {
    entry.ele(NS.atom, 'content', { type: 'text' }).txt('No-op deposit: nothing was stored.');
  }
  entry.ele(NS.atom, 'generator', { uri: data.generator.uri, version: data.generator.version }).txt(xmlText(data.generator.name));
  if (data.userAgent) entry.ele(NS.sword, 'sword:userAgent').txt(xmlText(data.userAgent));
  entry.ele(NS.sword, 'sword:treatment').txt(xmlText(data.treatment));
  entry.ele(NS.sword, 'sword:noOp').txt(String(data.noOp));
  if (data.verboseDescription) entry.ele(NS.sword, 'sword:verboseDescription').txt(xmlText(data.verboseDescription));
  return entry.end({ prettyPrint: true });
}
