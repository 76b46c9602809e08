/** What a node advertises at GET /services (spec "Services document"), as lr-node needs it. */
import { endpoint, okJson, request, type RetryPolicy } from './http-client.js';
import { refusedError } from './errors.js';

export interface ServiceEntry {
  service_name?: string;
  service_endpoint?: string;
  active?: boolean;
  service_data?: Record<string, unknown>;
  service_auth?: { service_authz?: string[] };
}

export async function readServices(base: string, policy: RetryPolicy): Promise<ServiceEntry[]> {
  const body = okJson(await request(endpoint(base, 'services'), { headers: { accept: 'application/json' } }, policy), 'GET /services');
  if (!Array.isArray(body.services)) throw refusedError('GET /services: the answer has no "services" list');
  return body.services as ServiceEntry[];
}

export interface PublishLimits { docLimit: number; msgSizeLimit: number }

/** The Basic Publish service's `doc_limit` and `msg_size_limit` (spec "Basic Publish", service description). */
export function publishLimits(services: ServiceEntry[]): PublishLimits {
  const publish = services.find((s) => s.service_name === 'Basic Publish' || /\/publish$/.test(s.service_endpoint ?? ''));
  if (!publish || publish.active === false) throw refusedError('the node advertises no active Basic Publish service');
  const positive = (value: unknown, fallback: number): number => (typeof value === 'number' && value > 0 ? value : fallback);
  // The spec makes both limits optional: without them, one document a request of any size.
  return { docLimit: positive(publish.service_data?.doc_limit, 1), msgSizeLimit: positive(publish.service_data?.msg_size_limit, Number.MAX_SAFE_INTEGER) };
}
