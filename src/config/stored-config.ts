/**
 * The configuration the node's stored documents describe: the inverse of node-documents.ts and
 * service-descriptions.ts. A start without CONFIG keeps what an earlier start stored (README
 * "Configuration"): it applies this configuration, so the documents stay as they are but for what
 * this start itself decides (the endpoints, from PUBLIC_URL; what this version derives or adds),
 * and the settings read from memory (node_name, the sizes checked against CouchDB) agree with them.
 */
import { validateNodeConfig, type NodeConfig } from './node-config.js';
import { NULL_STATES_NONE, nodeConfigSchema } from './node-config.schema.js';
import { SERVICE_CATALOGUE, serviceDocId } from '../domain/service-descriptions.js';

type Doc = Record<string, unknown>;

/** What the node stored, read by storage/node-repository.ts (storedDescriptions). */
export interface StoredDescriptions {
  node: Doc;
  community: Doc | undefined;
  network: Doc | undefined;
  filter: Doc | undefined;
  connections: Doc[];
  services: Doc[];
}

/** Where ConfigError says a stored value the node cannot use comes from, and what replaces it. */
export const STORED_CONFIG_SOURCE = 'the configuration stored in the node database (kept when CONFIG is unset; CONFIG=FILE or CONFIG=defaults replaces it) ';

interface Section { properties: Record<string, unknown> }

/**
 * The keys of `doc` the schema section knows: the document's bookkeeping (_id, doc_type, node_id,
 * …) and what the node derives (publish's max_document_size, from the policy) are no setting.
 */
function pick(doc: unknown, section: Section): Doc {
  if (typeof doc !== 'object' || doc === null) return {};
  return Object.fromEntries(Object.entries(doc).filter(([key]) => Object.hasOwn(section.properties, key)));
}

const { properties: sections } = nodeConfigSchema;

function storedService(entry: typeof SERVICE_CATALOGUE[number], doc: Doc): Doc {
  const schema = sections.services.properties[entry.key];
  const deployment = pick(doc, schema);
  // The catalogue's own name and text are no setting: a later version's wording then applies.
  if (deployment.service_name === entry.service_name) delete deployment.service_name;
  if (deployment.service_description === entry.description) delete deployment.service_description;
  deployment.service_auth = pick(doc.service_auth, schema.properties.service_auth);
  const data = pick(doc.service_data, schema.properties.service_data as Section);
  // A limit a description leaves out states none (NULL_STATES_NONE): null says so again.
  for (const name of NULL_STATES_NONE[entry.key] ?? []) if (!(name in data)) data[name] = null;
  // The schema location the node derived from the PUBLIC_URL of its start follows PUBLIC_URL.
  const endpoint = typeof doc.service_endpoint === 'string' ? doc.service_endpoint : '';
  if (entry.key === 'oai_pmh' && endpoint.endsWith(entry.path) && data.schemalocation === `${endpoint.slice(0, -entry.path.length)}/schemas/OAI-PMH-LR.xsd`) delete data.schemalocation;
  deployment.service_data = data;
  return deployment;
}

/** The stored descriptions as a CONFIG file would give them, checked and completed by the CONFIG schema. */
export function storedNodeConfig(stored: StoredDescriptions): NodeConfig {
  const services: Doc = {};
  for (const entry of SERVICE_CATALOGUE) {
    const doc = stored.services.find((service) => service._id === serviceDocId(entry));
    if (doc) services[entry.key] = storedService(entry, doc);
  }
  return validateNodeConfig({
    node: pick(stored.node, sections.node),
    community: pick(stored.community, sections.community),
    network: pick(stored.network, sections.network),
    policy: pick(stored.node.node_policy, sections.policy),
    ...(stored.filter ? { filter: pick(stored.filter, sections.filter) } : {}),
    connections: stored.connections.map((connection) => pick(connection, sections.connections.items)),
    services,
  }, STORED_CONFIG_SOURCE);
}
