/**
 * The SWORD 1.3 service document (spec "SWORD publish"; SWORD 1.3 profile section 2.1,
 * RFC 5023 section 8): one workspace, and its one collection only for a user who may deposit.
 * `sword:treatment` and `sword:service` are never written (the spec omits them).
 */
import { create } from 'xmlbuilder2';
import { NS } from './namespaces.js';
import { xmlText } from '../xml-chars.js';

export interface CollectionData {
  href: string;
  title: string;
  abstract?: string;
  policy?: string;
}

export interface ServiceDocumentData {
  workspaceTitle: string;
  collection?: CollectionData;
  /** The largest deposit taken, in kB (SWORD 1.3 profile 2.1, `sword:maxUploadSize`): publish's msg_size_limit. */
  maxUploadKb?: number;
}

export function serviceDocument(data: ServiceDocumentData): string {
  const service = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(NS.app, 'service', { 'xmlns:atom': NS.atom, 'xmlns:sword': NS.sword, 'xmlns:dcterms': NS.dcterms });
  service.ele(NS.sword, 'sword:version').txt('1.3');
  service.ele(NS.sword, 'sword:verbose').txt('true');
  service.ele(NS.sword, 'sword:noOp').txt('true');
  if (data.maxUploadKb !== undefined) service.ele(NS.sword, 'sword:maxUploadSize').txt(String(data.maxUploadKb));
  const workspace = service.ele(NS.app, 'workspace');
  workspace.ele(NS.atom, 'atom:title').txt(xmlText(data.workspaceTitle));
  const collection = data.collection;
  if (collection) {
    const element = workspace.ele(NS.app, 'collection', { href: collection.href });
    element.ele(NS.atom, 'atom:title').txt(xmlText(collection.title));
    element.ele(NS.app, 'accept').txt('application/json');
    element.ele(NS.sword, 'sword:mediation').txt('true');
    if (collection.abstract) element.ele(NS.dcterms, 'dcterms:abstract').txt(xmlText(collection.abstract));
    if (collection.policy) element.ele(NS.sword, 'sword:collectionPolicy').txt(xmlText(collection.policy));
  }
  return service.end({ prettyPrint: true });
}
