/**
 * Service description documents (spec "Service description document (common shape)" and
 * "Versioning"): one per service of the spec, built from the deployment configuration.
 * `service_id` is generated once and passed in; the endpoint is built from PUBLIC_URL.
 */
import type { NodeConfig, ServiceKey } from './node-configuration.js';
import { MAX_ID_LENGTH } from './id-lookup.js';

const SERVICE_DESCRIPTION_DOC_VERSION = '0.20.0';

export interface ServiceCatalogueEntry {
  key: ServiceKey;
  service_type: 'access' | 'publish' | 'delete' | 'distribute';
  service_name: string;
  service_version: string;
  path: string;
  description: string;
}

/** Versions from the spec's Versioning table; harvest, OAI-PMH and slice are not given there (0.10.0 as deployed). */
export const SERVICE_CATALOGUE: readonly ServiceCatalogueEntry[] = [
  { key: 'publish', service_type: 'publish', service_name: 'Basic Publish', service_version: '0.23.0', path: '/publish', description: 'Push resource data description documents to the node.' },
  { key: 'sword', service_type: 'publish', service_name: 'SWORD APP Publish V1.3', service_version: '0.10.0', path: '/swordservice', description: 'Deposit through the SWORD 1.3 profile of the Atom Publishing Protocol.' },
  { key: 'delete', service_type: 'delete', service_name: 'Basic Delete', service_version: '0.10.0', path: '/delete', description: 'Delete documents by ID (deprecated: use replacement).' },
  { key: 'distribute', service_type: 'distribute', service_name: 'Resource Data Distribution', service_version: '0.23.0', path: '/distribute', description: 'Replicate resource data to the destination nodes.' },
  { key: 'obtain', service_type: 'access', service_name: 'Basic Obtain', service_version: '0.21.0', path: '/obtain', description: 'Fetch documents or IDs by document ID or resource locator.' },
  { key: 'harvest', service_type: 'access', service_name: 'Basic Harvest', service_version: '0.10.0', path: '/harvest', description: 'OAI-PMH-patterned harvest returning JSON.' },
  { key: 'oai_pmh', service_type: 'access', service_name: 'OAI-PMH Harvest', service_version: '0.10.0', path: '/OAI-PMH', description: 'OAI-PMH 2.0 harvest returning XML.' },
  { key: 'slice', service_type: 'access', service_name: 'Slice', service_version: '0.10.0', path: '/slice', description: 'Pull documents by identity, tags and dates.' },
];

export interface ServiceDescription extends Record<string, unknown> {
  _id: string;
  doc_type: 'service_description';
  doc_version: string;
  doc_scope: 'node';
  active: boolean;
  service_id: string;
  service_type: string;
  service_name: string;
  service_description: string;
  service_version: string;
  service_endpoint: string;
  service_auth: { service_authz: string[]; service_key: boolean; service_https: boolean };
  service_data?: Record<string, unknown>;
}

export function serviceDocId(entry: ServiceCatalogueEntry): string {
  return `${entry.service_type}:${entry.service_name} service`;
}

export function buildServiceDescription(entry: ServiceCatalogueEntry, config: NodeConfig, publicUrl: string, serviceId: string): ServiceDescription {
  const deployment = config.services[entry.key];
  const doc: ServiceDescription = {
    _id: serviceDocId(entry),
    doc_type: 'service_description',
    doc_version: SERVICE_DESCRIPTION_DOC_VERSION,
    doc_scope: 'node',
    active: deployment.active,
    service_id: serviceId,
    service_type: entry.service_type,
    service_name: deployment.service_name ?? entry.service_name,
    service_description: deployment.service_description ?? entry.description,
    service_version: entry.service_version,
    service_endpoint: `${publicUrl}${entry.path}`,
    service_auth: { ...deployment.service_auth },
  };
  // Distribution has no service_data (spec table "Service_data by service").
  if (entry.key !== 'distribute') {
    const data = { ...deployment.service_data };
    if (entry.key === 'oai_pmh' && data.schemalocation === undefined) data.schemalocation = `${publicUrl}/schemas/OAI-PMH-LR.xsd`;
    // Spec "Limits": an implementation MUST state any size limits in the service description. The
    // largest document the node policy stores is one, for both publishing services; it is the policy's
    // value that is enforced (document-checks.ts), so it is stated from there, never from service_data.
    if (entry.key === 'publish' || entry.key === 'sword') {
      data.max_document_size = config.policy.max_document_size;
      // The longest doc_ID and resource locator stored (validation/resource-data-schemas.ts).
      data.id_length_limit = MAX_ID_LENGTH;
    }
    doc.service_data = data;
  }
  return doc;
}

/** Which credentials a service takes (its service_authz): Basic and bearer tokens, OAuth 1.0 signatures. */
export interface CredentialSchemes { basic: boolean; oauth: boolean }
