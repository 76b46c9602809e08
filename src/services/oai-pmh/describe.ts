/**
 * Identify, ListMetadataFormats and ListSets (OAI-PMH 2.0 §4.2, §4.4, §4.6; spec "OAI-PMH
 * Harvest (XML)": ListMetadataFormats takes the GetRecord identifier arguments; sets are
 * unsupported).
 */
import type { StoredDoc } from '../../storage/documents.js';
import { RESPONSE_ENCODINGS } from '../../protocol/content-encodings.js';
import { describeFormat, jsonFormat, METADATA_PREFIX } from '../../protocol/oai-pmh/formats.js';
import type { OaiBody, OaiFormat } from '../../protocol/oai-pmh/response.js';
import { datestamp } from '../harvest/harvest-dates.js';
import { earliestTimestamp } from '../harvest/harvest-selection.js';
import { BadArgument, BadResumptionToken, IdDoesNotExist, NoMetadataFormats, NoSetHierarchy } from './oai-errors.js';
import { flagArg } from './oai-flags.js';
import { resolveOaiIdentifier, showDeleted, type OaiContext } from './oai-context.js';
import { OAI_DC } from './oai-dc.js';
import { adminEmailOf } from '../../domain/admin-email.js';

export async function identify(context: OaiContext): Promise<OaiBody> {
  const { settings } = context;
  const identity = String(settings.node.node_admin_identity ?? '');
  const earliest = await earliestTimestamp(context.store, settings.earliestBound, showDeleted(context));
  return {
    kind: 'Identify',
    identify: {
      repositoryName: String(settings.node.node_name ?? 'Learning Registry node'),
      baseURL: settings.description.service_endpoint,
      // The address in the identity (CONFIG is refused without one); an identity edited in the
      // store to name none is shown as it is rather than no adminEmail at all.
      adminEmails: [adminEmailOf(identity) ?? identity],
      earliestDatestamp: datestamp(earliest ?? settings.earliestBound ?? context.clock().toISOString(), settings.granularity),
      deletedRecord: settings.deletedPolicy,
      granularity: settings.granularity,
      compression: RESPONSE_ENCODINGS,
      // No oai-identifier description: headers carry the doc_ID itself (spec: identifier = doc_ID),
      // and Identify describes only what the headers use (new doc_IDs are urn:uuid URIs).
    },
  };
}

function formatsOf(docs: StoredDoc[]): Map<string, unknown> {
  const formats = new Map<string, unknown>();
  for (const doc of docs) {
    for (const schema of Array.isArray(doc.payload_schema) ? doc.payload_schema : []) {
      if (typeof schema !== 'string' || !METADATA_PREFIX.test(schema) || formats.has(schema.toLowerCase())) continue;
      formats.set(schema.toLowerCase(), doc.payload_schema_locator);
    }
  }
  return formats;
}

export async function listMetadataFormats(args: Record<string, string>, context: OaiContext): Promise<OaiBody> {
  const json = context.settings.jsonPrefixes.map((prefix) => jsonFormat(prefix, context.extensionSchema));
  let stored: Map<string, unknown>;
  if (args.identifier !== undefined) {
    const byDocId = flagArg(args, 'by_doc_ID');
    const byResourceId = flagArg(args, 'by_resource_ID');
    if (byDocId === true && byResourceId === true) throw new BadArgument('by_doc_ID and by_resource_ID cannot both be true');
    const docs = await resolveOaiIdentifier(args.identifier, { byDocId, byResourceId }, context);
    if (docs.length === 0) throw new IdDoesNotExist('no document has this identifier');
    stored = formatsOf(docs);
  } else {
    if (args.by_doc_ID !== undefined || args.by_resource_ID !== undefined) throw new BadArgument('by_doc_ID and by_resource_ID need an identifier');
    // One sample document per stored format, for its payload_schema_locator.
    const schemas = (await context.store.distinctSchemas()).filter((entry) => METADATA_PREFIX.test(entry.schema));
    const samples = await Promise.all(schemas.map((entry) => context.store.byDocId(entry.id)));
    stored = new Map(schemas.map((entry, index) => [entry.schema, samples[index]?.payload_schema_locator]));
  }
  // oai_dc for every record (oai-dc.ts), OAI-PMH 2.0 §3.4.
  if (!stored.has(OAI_DC)) stored.set(OAI_DC, undefined);
  const formats: OaiFormat[] = [...stored].map(([prefix, locator]) => describeFormat(prefix, locator, context.extensionSchema));
  const all = [...formats, ...json.filter((format) => !stored.has(format.metadataPrefix.toLowerCase()))];
  if (all.length === 0) throw new NoMetadataFormats('no metadata format is available');
  return { kind: 'ListMetadataFormats', formats: all };
}

export function listSets(args: Record<string, string>): never {
  if (args.resumptionToken !== undefined) throw new BadResumptionToken('this node issues no ListSets resumption tokens');
  throw new NoSetHierarchy('this node does not support sets');
}
