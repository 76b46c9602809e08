/**
 * The deployed settings of one service, read from its service description document at each
 * call: limits and authorization changed in CouchDB apply without a restart, in every process.
 */
import { SERVICE_CATALOGUE, serviceDocId, type ServiceDescription } from '../domain/service-descriptions.js';
import type { ServiceKey } from '../config/index.js';
import type { NodeRepository } from '../storage/node-repository.js';
import { AppError, notBootstrapped } from '../errors/app-error.js';

export class ServiceSettings {
  constructor(private readonly nodes: NodeRepository) {}

  async of(key: ServiceKey): Promise<ServiceDescription> {
    const entry = SERVICE_CATALOGUE.find((candidate) => candidate.key === key);
    if (!entry) throw new Error(`unknown service ${key}`);
    const doc = await this.nodes.serviceDescription(serviceDocId(entry));
    if (!doc) throw notBootstrapped(`the ${entry.service_name} service description`);
    const description = doc as unknown as ServiceDescription;
    if (!description.active) throw new AppError(503, 'service_inactive', `the ${entry.service_name} service is not active on this node`);
    return description;
  }
}

export function numberSetting(data: Record<string, unknown> | undefined, name: string): number | undefined {
  const value = data?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function requiresBasicAuth(description: ServiceDescription): boolean {
  return description.service_auth.service_authz.includes('basicauth');
}

/** For the gate's `when`: a request to this service needs credentials when its description says basicauth (read at each request). */
export function credentialsRequired(settings: ServiceSettings, key: ServiceKey): () => Promise<boolean> {
  return async () => requiresBasicAuth(await settings.of(key));
}
