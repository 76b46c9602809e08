/**
 * What one harvest request needs from the node's documents, read at each request (service
 * description and node policy may change while the node runs): granularity, page sizes, the
 * deleted-data policy and the configured earliest datestamp.
 */
import type { DeletedDataPolicy } from '../../config/node-config.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ServiceDescription } from '../../domain/service-descriptions.js';
import { deletedDataPolicyOf } from '../../domain/node-documents.js';
import { notBootstrapped } from '../../errors/app-error.js';
import { numberSetting, type ServiceSettings } from '../service-settings.js';
import { granularityOf, lowerBound, parseDatestamp, type Granularity } from './harvest-dates.js';

export interface HarvestSettings {
  description: ServiceDescription;
  node: Record<string, unknown>;
  granularity: Granularity;
  /** Records in a page of listrecords / ListRecords: `service_data.doc_limit`. */
  pageSize: number;
  /**
   * Headers in a page of listidentifiers / ListIdentifiers: `service_data.id_limit`, as Basic
   * Obtain's id_limit bounds its identifier lists (spec "Service_data by service"; the spec leaves
   * the harvest descriptions' full field lists unshown). A description without it pages both by doc_limit.
   */
  idPageSize: number;
  /**
   * `service_data.flow_control`: lists page by `pageSize` with resumption tokens, as the node's
   * default description states; `false` (the spec's Basic Harvest: "flow control ... unsupported")
   * answers each list whole, streamed. Absent counts as true, the node's long-standing behaviour.
   */
  flowControl: boolean;
  deletedPolicy: DeletedDataPolicy;
  /** `service_data.earliestDatestamp` as a node_timestamp lower bound: older documents are not harvestable. */
  earliestBound: string | undefined;
  /** The JSON metadata prefixes of `service_data.metadataformats`. */
  jsonPrefixes: string[];
  allowPrivateFetch: boolean;
}

/** Pages are bounded whatever the description says, so one response stays small. */
const MAX_PAGE = 1000;
const DEFAULT_PAGE = 100;

/** A limit of the description as a page size: at most MAX_PAGE, `fallback` when it states none usable. */
function pageSizeOf(limit: number | undefined, fallback: number): number {
  return limit && limit > 0 ? Math.min(Math.floor(limit), MAX_PAGE) : fallback;
}

function jsonPrefixesOf(data: Record<string, unknown> | undefined): string[] {
  const formats = Array.isArray(data?.metadataformats) ? data.metadataformats as unknown[] : [];
  return formats.flatMap((entry) => {
    const prefix = (entry as { metadataFormat?: { metadataPrefix?: unknown } } | null)?.metadataFormat?.metadataPrefix;
    return typeof prefix === 'string' && prefix !== '' ? [prefix] : [];
  });
}

export async function loadHarvestSettings(settings: ServiceSettings, nodes: NodeRepository, key: 'harvest' | 'oai_pmh'): Promise<HarvestSettings> {
  const [description, node] = await Promise.all([settings.of(key), nodes.nodeDescription()]);
  if (!node) throw notBootstrapped('the node description');
  const data = description.service_data;
  const pageSize = pageSizeOf(numberSetting(data, 'doc_limit'), DEFAULT_PAGE);
  const policy = (node.node_policy ?? {}) as { allow_private_fetch?: boolean };
  const earliest = typeof data?.earliestDatestamp === 'string' ? parseDatestamp(data.earliestDatestamp) : undefined;
  return {
    description,
    node,
    granularity: granularityOf(data?.granularity),
    pageSize,
    idPageSize: pageSizeOf(numberSetting(data, 'id_limit'), pageSize),
    flowControl: data?.flow_control !== false,
    deletedPolicy: deletedDataPolicyOf(node),
    earliestBound: earliest ? lowerBound(earliest.value) : undefined,
    jsonPrefixes: jsonPrefixesOf(data),
    allowPrivateFetch: policy.allow_private_fetch === true,
  };
}
