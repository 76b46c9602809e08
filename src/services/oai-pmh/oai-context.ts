/** What every OAI-PMH handler gets: settings of this request, the stores, and small shared rules. */
import type { StoredDoc } from '../../storage/documents.js';
import type { TokenCodec } from '../../domain/resumption-token.js';
import type { Clock } from '../../domain/timestamps.js';
import type { Logger } from 'pino';
import { METADATA_PREFIX } from '../../protocol/oai-pmh/formats.js';
import type { OaiHeader } from '../../protocol/oai-pmh/response.js';
import type { HarvestRepository } from '../../storage/harvest-repository.js';
import type { HarvestSettings } from '../harvest/harvest-settings.js';
import { headerOfDoc, type RecordHeader } from '../harvest/harvest-records.js';
import type { MetadataSource } from './metadata.js';
import { BadArgument } from './oai-errors.js';
import { docIdCandidates, oaiIdentifierOf } from '../../protocol/oai-pmh/identifiers.js';
import { resolveIdentifier, type IdentifierFlags } from '../harvest/harvest-lookup.js';

export interface OaiDeps {
  store: HarvestRepository;
  metadata: MetadataSource;
  tokens: TokenCodec;
  clock: Clock;
  logger: Logger;
}

export interface OaiContext extends OaiDeps {
  settings: HarvestSettings;
  /** The extension schema URL (service_data.schemalocation). */
  extensionSchema: string;
  /** The repositoryIdentifier of the oai-identifier form earlier versions advertised (still accepted). */
  repositoryIdentifier: string;
}

export function showDeleted(context: OaiContext): boolean {
  return context.settings.deletedPolicy !== 'no';
}

/** Case-insensitive, as the oai-pmh/by_schema view lower-cases payload_schema. */
export function isJsonPrefix(context: OaiContext, prefix: string): boolean {
  return namesJsonPrefix(context.settings.jsonPrefixes, prefix);
}

/** Whether `prefix` is one of the JSON prefixes, case-insensitively (the one comparison of both places that ask). */
export function namesJsonPrefix(jsonPrefixes: string[], prefix: string): boolean {
  const wanted = prefix.toLowerCase();
  return jsonPrefixes.some((json) => json.toLowerCase() === wanted);
}

export function checkPrefix(prefix: string): string {
  if (!METADATA_PREFIX.test(prefix)) throw new BadArgument('metadataPrefix has characters OAI-PMH does not allow');
  return prefix;
}

export function oaiHeader(doc: StoredDoc, context: OaiContext): OaiHeader {
  return asOaiHeader(headerOfDoc(doc, context.settings.granularity));
}

/** A Basic Harvest record header in OAI-PMH's form: the identifier as an xs:anyURI (identifiers.ts). */
export function asOaiHeader(header: RecordHeader): OaiHeader {
  return { identifier: oaiIdentifierOf(header.identifier), datestamp: header.datestamp, deleted: header.status === 'deleted' };
}

/**
 * The documents an identifier names (GetRecord, ListMetadataFormats): the oai-identifier form
 * earlier versions advertised is accepted, and a doc_ID that is no URI is found by its
 * percent-encoded form (protocol/oai-pmh/identifiers.ts).
 */
export async function resolveOaiIdentifier(identifier: string, flags: IdentifierFlags, context: OaiContext): Promise<StoredDoc[]> {
  for (const candidate of docIdCandidates(docIdentifier(identifier, context))) {
    const docs = await resolveIdentifier(context.store, candidate, flags, showDeleted(context), context.settings.earliestBound);
    if (docs.length > 0) return docs;
  }
  return [];
}

/** Identifiers of the oai-identifier form earlier versions advertised (oai:<repository>:<doc_ID>) are still accepted. */
export function docIdentifier(identifier: string, context: OaiContext): string {
  const prefix = `oai:${context.repositoryIdentifier}:`;
  return identifier.startsWith(prefix) && identifier.length > prefix.length ? identifier.slice(prefix.length) : identifier;
}

const DOMAIN = /^[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

/** The node's host name when it is a domain name; otherwise a reserved name (RFC 2606), as the pattern demands one. */
export function repositoryIdentifierOf(baseUrl: string): string {
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // an unparsable endpoint: the fallback below
  }
  return DOMAIN.test(host) ? host : 'lr-node.invalid';
}
