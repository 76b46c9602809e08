/**
 * Requests Node's HTTP parser refuses before any route sees them (headers or URL over the
 * parser's limit, malformed request lines): answered in the JSON services' error form instead
 * of Node's bare status line, then the connection is closed (Node "Event: 'clientError'").
 */
import type { Socket } from 'node:net';

export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) { socket.destroy(); return; }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ OK: false, error: tooLarge ? 'the request line and headers are too large (the limit is 16 KiB)' : 'the request is not valid HTTP' });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
