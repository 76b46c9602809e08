/**
 * The deployed settings of one service, read from its service description document at each
 * call: limits and authorization changed in CouchDB apply without a restart, in every process.
 */
import { SERVICE_CATALOGUE, serviceDocId, type ServiceDescription } from '../domain/service-descriptions.js';
import type { ServiceKey } from '../config/index.js';
import type { NodeRepository } from '../storage/node-repository.js';
import { AppError, notBootstrapped } from '../errors/app-error.js';
import type { CredentialSchemes } from '../domain/service-descriptions.js';

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

/**
 * The credentials a description's service_auth.service_authz asks for: `basicauth` (HTTP Basic,
 * and the bearer tokens of /auth), `oauth` (OAuth 1.0 signatures), both, or none (`none`, or an
 * empty list: anyone), as the original node read them (its bauth.py and oauth.py). A list that
 * names only a scheme this node does not take (`ssh`, which the configuration schema allows)
 * asks for credentials all the same, of either scheme: read as none, it opened the service to
 * anyone, where its operator meant to restrict it.
 */
export function credentialSchemes(description: ServiceDescription): CredentialSchemes | false {
  const authz = description.service_auth.service_authz;
  const schemes = { basic: authz.includes('basicauth'), oauth: authz.includes('oauth') };
  if (schemes.basic || schemes.oauth) return schemes;
  return authz.length === 0 || authz.includes('none') ? false : { basic: true, oauth: true };
}

/** For the gate's `when`: the credentials a request to this service needs, read from its description at each request; false: none. */
export function credentialsRequired(settings: ServiceSettings, key: ServiceKey): () => Promise<CredentialSchemes | false> {
  return async () => credentialSchemes(await settings.of(key));
}
