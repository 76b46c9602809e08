/**
 * Requests Node's HTTP parser refuses before any route sees them (headers or URL over the
 * parser's limit, malformed request lines): answered in the JSON services' error form instead
 * of Node's bare status line, then the connection is closed (Node "Event: 'clientError'").
 * A request to /OAI-PMH is answered in plain text instead, as that endpoint answers what its
 * protocol has no error code for (405, 503: oai-pmh.routes.ts), when its request line can be
 * read: Node hands over only the chunk it was parsing (`rawPacket`), which holds the request line
 * when the head arrived in one piece, as clients send it; otherwise the path is unknown, and
 * the JSON form stays.
 */
import type { Socket } from 'node:net';

/** A request line's start (origin or absolute form), read at lastIndex: its path. */
const REQUEST_LINE = /[A-Z]+ (?:https?:\/\/[^/\s]*)?(\/[^\s?#]*)/y;

function pathAt(head: string, index: number): string | undefined {
  REQUEST_LINE.lastIndex = index;
  return REQUEST_LINE.exec(head)?.[1];
}

/**
 * The path of the refused request, if `packet` (the chunk Node was parsing) holds its request
 * line. Requests pipelined on one connection may precede it whole in the same chunk, so the
 * chunk is walked request by request: a head, then as many body bytes as its Content-Length
 * says. The refused request is the one whose head does not end before the point of refusal,
 * or the last one the chunk holds. A chunk that does not begin with a request line (the head
 * came in pieces) or holds a chunked body leaves the path unknown: a path guessed from a
 * request line found elsewhere named the request before a body as the refused one.
 */
function refusedPath(packet: Buffer | undefined, errorAt: number | undefined): string | undefined {
  if (!packet) return undefined;
  const chunk = packet.subarray(0, Math.min(packet.length, errorAt ?? packet.length)).toString('latin1');
  for (let start = 0; ;) {
    const path = pathAt(chunk, start);
    const headEnd = chunk.indexOf('\r\n\r\n', start);
    if (path === undefined || headEnd < 0) return path;
    const head = chunk.slice(start, headEnd);
    if (/\r\ntransfer-encoding:/i.test(head)) return undefined;
    const next = headEnd + 4 + Number(/\r\ncontent-length:[ \t]*(\d+)/i.exec(head)?.[1] ?? 0);
    if (next >= chunk.length) return path;
    start = next;
  }
}

const OAI_PMH_PATH = /^\/oai-pmh\/?$/i;

export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number }, socket: Socket): void {
  if (!socket.writable) { socket.destroy(); return; }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const reason = tooLarge ? 'the request line and headers are too large (the limit is 16 KiB)' : 'the request is not valid HTTP';
  // OAI-PMH 2.0 §3.1.1 allows POST, whose arguments travel in the body, beyond this limit.
  const path = refusedPath(error.rawPacket, error.bytesParsed);
  // Every path the router serves as OAI-PMH: @koa/router matches case-insensitively and with a trailing slash.
  const [type, body] = path !== undefined && OAI_PMH_PATH.test(path)
    ? ['text/plain', `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${tooLarge ? '; send long OAI-PMH arguments by POST (application/x-www-form-urlencoded)' : ''}.\n`]
    : ['application/json', JSON.stringify({ OK: false, error: reason })];
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: ${type}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
