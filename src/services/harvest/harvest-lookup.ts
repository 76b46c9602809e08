/**
 * Resolving a getrecord identifier (spec "Basic Harvest (JSON)", getrecord rules 3-4; "OAI-PMH
 * Harvest (XML)", GetRecord checks 4-5; "What the service does", 6: a request ID is a doc_ID
 * or a resource locator). The flags decide as domain/id-lookup.ts says: a doc_ID (`by_doc_ID`
 * true, or both flags false), or a resource locator, every document of it (any other flag sent,
 * `by_doc_ID=F` too). Neither given (the defaults): a resource locator, and when none matches a
 * doc_ID, because standard OAI-PMH harvesters send the identifier they were given by
 * ListIdentifiers (a doc_ID) without the extension flags.
 */
import type { StoredDoc } from '../../storage/documents.js';
import type { HarvestRepository } from '../../storage/harvest-repository.js';
import { isDeleted, isHarvestable } from '../../domain/resource-document.js';
import { idLookupOf } from '../../domain/id-lookup.js';

export interface IdentifierFlags { byDocId: boolean | undefined; byResourceId: boolean | undefined }

export async function resolveIdentifier(store: HarvestRepository, identifier: string, flags: IdentifierFlags, showDeleted: boolean, earliestBound: string | undefined): Promise<StoredDoc[]> {
  const visible = (doc: StoredDoc | undefined): doc is StoredDoc => doc !== undefined && isHarvestable(doc)
    && (showDeleted || !isDeleted(doc)) && (!earliestBound || String(doc.node_timestamp) >= earliestBound);
  const lookup = idLookupOf(flags.byDocId, flags.byResourceId);
  if (lookup === 'doc_ID') return [await store.byDocId(identifier)].filter(visible);
  const byLocator = (await store.byResourceLocator(identifier)).filter(visible);
  // A flag sent states the lookup: no fallback to the doc_ID.
  if (byLocator.length > 0 || lookup === 'resource_locator') return byLocator;
  return [await store.byDocId(identifier)].filter(visible);
}
