/**
 * HTTP Basic credentials as an Authorization header value (RFC 7617), written once for every
 * side of the node that sends them: the store connection's own requests (the /incoming
 * forwarder, the replication source), distribution's destination endpoints, and the lr-node
 * client commands. A leaf, so storage/ and the command line may both import it.
 */

/** An HTTP Basic Authorization header value (RFC 7617). */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The Authorization header for the credentials in a URL's userinfo (percent-decoded), or undefined. */
export function urlAuthorization(url: string): string | undefined {
  const parsed = new URL(url);
  return parsed.username ? basicAuthorization(decodeURIComponent(parsed.username), decodeURIComponent(parsed.password)) : undefined;
}
