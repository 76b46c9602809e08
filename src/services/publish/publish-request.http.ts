/**
 * What /publish and /delete share at the HTTP boundary: the service description, the account
 * when the service requires Basic auth, and the JSON body within `msg_size_limit`; a body that
 * cannot be read is a global error (HTTP 500, spec "Publish" status codes).
 */
import type { NodeContext } from '../../http/context.js';
import type { Account } from '../../storage/account-repository.js';
import type { ServiceDescription } from '../../domain/service-descriptions.js';
import { readJsonBody, bodyRefusal, isUnsupportedType } from '../../http/json-body.js';
import { AppError, specRefusal } from '../../errors/app-error.js';
import { numberSetting, type ServiceSettings } from '../service-settings.js';

export interface PublishRequest { description: ServiceDescription; account: Account | undefined; body: unknown; docLimit: number | undefined }

/** The body of a /publish or /delete request; the account is the one the gate admitted (src/http/gate.ts), if the service asks for one. */
export async function readPublishRequest(ctx: NodeContext, settings: ServiceSettings, service: 'publish' | 'delete'): Promise<PublishRequest> {
  const description = await settings.of(service);
  const account = ctx.state.principal;
  const limit = numberSetting(description.service_data, 'msg_size_limit');
  let body: unknown;
  try {
    body = await readJsonBody(ctx, limit);
  } catch (error) {
    // A 415, and a body its OAuth signature does not cover (401: http/signed-body.ts), are not the body's fault.
    if (isUnsupportedType(error) || (error instanceof AppError && error.status === 401)) throw error;
    const refusal = bodyRefusal(error, limit, 'service_data.msg_size_limit');
    throw specRefusal(refusal.code, refusal.message);
  }
  return { description, account, body, docLimit: numberSetting(description.service_data, 'doc_limit') };
}
