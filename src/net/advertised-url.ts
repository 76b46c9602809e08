/**
 * The URL the node advertises (service descriptions, OAI-PMH baseURL, /destination's
 * incoming_url, SWORD Location): PUBLIC_URL, or else the address it is bound to. An unspecified
 * address (HOST=0.0.0.0 or ::) names no machine: advertised as it is (`http://[::]:8080`) or as
 * loopback, it is a URL no other machine can use, and a peer replicating to such an incoming_url
 * replicates to itself. The node then advertises loopback, which is right for a client on the
 * same machine, and says at start-up that PUBLIC_URL is needed (a docs audit found HOST=0.0.0.0,
 * which the README and the Dockerfile use, advertising http://127.0.0.1:PORT without a word).
 */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

export interface Advertised { publicUrl: string; warning?: string }

/** The URL of an address as bound (an IPv6 address in brackets). */
export function boundUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host.replace(/^\[|\]$/g, '')}]` : host}:${port}`;
}

export function advertisedUrl(host: string, port: number, publicUrl: string | undefined): Advertised {
  if (publicUrl !== undefined) return { publicUrl };
  if (!UNSPECIFIED.has(host)) return { publicUrl: boundUrl(host, port) };
  const loopback = host.includes(':') ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;
  return {
    publicUrl: loopback,
    warning: `HOST=${host} listens on every interface, but no PUBLIC_URL is set: the node advertises ${loopback} (service descriptions, OAI-PMH baseURL, the incoming_url peers replicate to), which no other machine can use; set PUBLIC_URL to the URL clients and peers reach this node at`,
  };
}
