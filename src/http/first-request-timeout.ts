/**
 * How long a new connection may stay silent before its first request. Node bounds a request's
 * headers by `headersTimeout`, which must outlast the keep-alive timeout (Node starts that timer
 * again when a kept-alive connection goes idle), and the node keeps idle connections 65 s for
 * CouchDB's replicator (runtime.ts): a socket that never sent a byte was therefore held 66 s,
 * plus up to Node's 30 s between timeout checks (an audit measured 96 s). The connection limit
 * bounds how many such sockets there can be; this bounds how long each one holds its place.
 *
 * Until the first request arrives, the socket has an inactivity timeout (every byte received
 * restarts it, so headers sent slowly are bounded by headersTimeout, not by this); once a
 * request arrives it is cleared, and Node's own timeouts govern the connection from then on:
 * a long answer, a slow upload and the keep-alive between requests are untouched.
 */
import type http from 'node:http';

/** Apache httpd's default for a request's first bytes (mod_reqtimeout "header=20-40"). */
export const FIRST_REQUEST_TIMEOUT_MS = 20_000;

export function boundFirstRequest(server: http.Server, timeoutMs = FIRST_REQUEST_TIMEOUT_MS): void {
  // A socket timing out with no 'timeout' listener on the server is destroyed by Node's http server.
  server.on('connection', (socket) => socket.setTimeout(timeoutMs));
  server.on('request', (req: http.IncomingMessage) => {
    // Only the first request's socket still has this timeout; Node sets its own after a response.
    if (req.socket.timeout === timeoutMs) req.socket.setTimeout(0);
  });
}
