/** lr-node status URL and lr-node services URL: the node's /status and /services, readable or as JSON. */
import { endpoint, okJson, request, type RetryPolicy } from '../http-client.js';
import { readServices } from '../node-services.js';
import { sentCounts } from '../sent-counts.js';

const text = (value: unknown): string => (value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value));

export async function status(url: string, json: boolean, policy: RetryPolicy): Promise<void> {
  const body = okJson(await request(endpoint(url, 'status'), { headers: { accept: 'application/json' } }, policy), 'GET /status');
  if (json) { process.stdout.write(`${JSON.stringify(body)}\n`); return; }
  const { outbound, ...rest } = body;
  for (const [key, value] of Object.entries(rest)) process.stdout.write(`${key}: ${text(value)}\n`);
  for (const [destination, entry] of Object.entries((outbound ?? {}) as Record<string, Record<string, unknown>>)) {
    process.stdout.write(`outbound ${destination}: ${text(entry.outcome)}${entry.reason ? ` (${text(entry.reason)})` : ''}${entry.last_sync ? ` at ${text(entry.last_sync)}` : ''}${sentCounts(entry, ', ')}\n`);
  }
}

export async function services(url: string, json: boolean, policy: RetryPolicy): Promise<void> {
  const list = await readServices(url, policy);
  if (json) { process.stdout.write(`${JSON.stringify(list)}\n`); return; }
  for (const service of list) {
    const authz = service.service_auth?.service_authz?.join(',') ?? 'none';
    const data = Object.entries(service.service_data ?? {})
      .filter(([, value]) => typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string')
      .map(([key, value]) => `${key}=${String(value)}`).join(' ');
    process.stdout.write(`${service.service_name ?? '?'}\t${service.active === false ? 'inactive' : 'active'}\t${service.service_endpoint ?? ''}\tauth=${authz}${data ? `\t${data}` : ''}\n`);
  }
}
