/**
 * Host names to addresses for the safe fetcher (safe-fetch.ts): resolved once, all addresses,
 * and a connection pinned to the address that was checked, so that a second DNS answer cannot
 * rebind a request (DNS rebinding) while the Host header and TLS still use the name.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver, in its own order (`verbatim`: what the operator's resolver configuration says). */
export async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
}

/** A `lookup` for node:net that always answers with the given (already checked) address. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** URL host without the IPv6 brackets. */
export function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
