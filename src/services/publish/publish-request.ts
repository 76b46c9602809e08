/**
 * What /publish and /delete share at the HTTP boundary: the service description, the account
 * when the service requires Basic auth, and the JSON body within `msg_size_limit`; a body that
 * cannot be read is a global error (HTTP 500, spec "Publish" status codes).
 */
import type { NodeContext } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import type { Account } from '../../storage/account-repository.js';
import type { ServiceDescription } from '../../domain/service-descriptions.js';
import { readJsonBody, describeBodyError } from '../../http/json-body.js';
import { numberSetting, requiresBasicAuth, type ServiceSettings } from '../service-settings.js';
import { PublishRefused } from './publish.service.js';

export interface PublishRequest { description: ServiceDescription; account: Account | undefined; body: unknown; docLimit: number | undefined }

export async function readPublishRequest(ctx: NodeContext, settings: ServiceSettings, auth: Authenticator, service: 'publish' | 'delete'): Promise<PublishRequest> {
  const description = await settings.of(service);
  const account = requiresBasicAuth(description) ? await auth.require(ctx.get('authorization'), 'publisher') : undefined;
  const limit = numberSetting(description.service_data, 'msg_size_limit');
  let body: unknown;
  try {
    body = await readJsonBody(ctx, limit);
  } catch (error) {
    throw new PublishRefused(describeBodyError(error, limit));
  }
  return { description, account, body, docLimit: numberSetting(description.service_data, 'doc_limit') };
}
