/**
 * What /publish and /delete share at the HTTP boundary: the service description, the account
 * when the service requires Basic auth, and the JSON body within `msg_size_limit`; a body that
 * cannot be read is a global error (HTTP 500, spec "Publish" status codes).
 */
import type { NodeContext } from '../../http/context.js';
import type { Authenticator } from '../../http/auth.js';
import type { Account } from '../../storage/account-repository.js';
import type { ServiceDescription } from '../../domain/service-descriptions.js';
import { readJsonBody, bodyRefusal, isUnsupportedType } from '../../http/json-body.js';
import { specRefusal } from '../../errors/app-error.js';
import { numberSetting, requiresBasicAuth, type ServiceSettings } from '../service-settings.js';

export interface PublishRequest { description: ServiceDescription; account: Account | undefined; body: unknown; docLimit: number | undefined }

export async function readPublishRequest(ctx: NodeContext, settings: ServiceSettings, auth: Authenticator, service: 'publish' | 'delete'): Promise<PublishRequest> {
  // The service description and the credential check are read at once (two store round trips in
  // parallel); the check's outcome counts only when the description asks for credentials.
  const header = ctx.get('authorization');
  const [description, checked] = await Promise.all([
    settings.of(service),
    header ? auth.require(header, 'publisher').then((account) => ({ account }), (error: unknown) => ({ error })) : undefined,
  ]);
  let account: Account | undefined;
  if (requiresBasicAuth(description)) {
    if (!checked) await auth.require(header, 'publisher'); // throws the 401
    else if ('error' in checked) throw checked.error;
    else account = checked.account;
  }
  const limit = numberSetting(description.service_data, 'msg_size_limit');
  let body: unknown;
  try {
    body = await readJsonBody(ctx, limit);
  } catch (error) {
    if (isUnsupportedType(error)) throw error;
    const refusal = bodyRefusal(error, limit, 'service_data.msg_size_limit');
    throw specRefusal(refusal.code, refusal.message);
  }
  return { description, account, body, docLimit: numberSetting(description.service_data, 'doc_limit') };
}
