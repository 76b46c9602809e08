/**
 * GetRecord (spec "OAI-PMH Harvest (XML)", GetRecord checks 1-6, in that order), with the
 * extensions: by_doc_ID / by_resource_ID, and several records for one resource locator.
 */
import type { OaiBody, OaiRecord } from '../../protocol/oai-pmh/response.js';
import { isDeleted } from '../../domain/resource-document.js';
import { OAI_DC } from './oai-dc.js';
import { flagArg } from './oai-flags.js';
import { BadArgument, CannotDisseminateFormat, IdDoesNotExist } from './oai-errors.js';
import { checkPrefix, oaiHeader, resolveOaiIdentifier, type OaiContext } from './oai-context.js';
import { hasFormat } from '../../domain/payload-formats.js';

export async function getRecord(args: Record<string, string>, context: OaiContext): Promise<OaiBody> {
  const identifier = args.identifier as string;
  const prefix = checkPrefix(args.metadataPrefix as string);
  const byDocId = flagArg(args, 'by_doc_ID');
  const byResourceId = flagArg(args, 'by_resource_ID');
  if (byDocId === true && byResourceId === true) throw new BadArgument('by_doc_ID and by_resource_ID cannot both be true');
  const docs = await resolveOaiIdentifier(identifier, { byDocId, byResourceId }, context);
  if (docs.length === 0) throw new IdDoesNotExist('no document has this identifier');
  // (The JSON prefix is answered as Basic Harvest before this: json-prefix.ts.) oai_dc is available for every record.
  const matching = prefix.toLowerCase() === OAI_DC ? docs : docs.filter((doc) => hasFormat(doc, prefix));
  if (matching.length === 0) throw new CannotDisseminateFormat('the metadata format is not available for this item');
  const emitted = await context.metadata.recordMetadata(matching.map((doc) => (isDeleted(doc) ? undefined : doc)), prefix, context.settings.allowPrivateFetch);
  const records = matching.map((doc, index): OaiRecord => {
    const header = oaiHeader(doc, context);
    if (isDeleted(doc)) return { header };
    const metadata = emitted[index];
    if (metadata && !metadata.ok && metadata.detail) context.logger.warn({ doc_ID: doc._id, detail: metadata.detail }, 'OAI-PMH GetRecord: metadata cannot be disseminated');
    if (!metadata?.ok) throw new CannotDisseminateFormat(`the record cannot be disseminated: ${metadata?.reason ?? 'no data'}`);
    return { header, metadata: metadata.metadata };
  });
  return { kind: 'GetRecord', records };
}
