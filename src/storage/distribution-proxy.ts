/**
 * Forwards one request of the CouchDB replication protocol to the node's own incoming database,
 * with the node's store credentials (the store itself is never exposed). What may be forwarded is
 * decided by src/services/distribute/inbound-replication.ts (allowed requests) and inbound-proxy.http.ts; this is the HTTP hop only.
 */
import { Readable } from 'node:stream';
import { mapCouchError, redactedUrl, type Couch } from './couch.js';
import { urlAuthorization } from '../net/basic-authorization.js';
import type { DatabaseNames } from './databases.js';

export interface ForwardRequest { method: string; subpath: string; search: string; contentType: string | undefined; body: Buffer | undefined }
export interface ForwardResponse { status: number; contentType: string | null; body: Readable | null }

/** The longest a forwarded request may take, its answer's headers included. */
const FORWARD_TIMEOUT_MS = 120_000;

export class IncomingForwarder {
  private readonly base: string;
  private readonly authorization: string | undefined;

  constructor(couch: Couch, names: DatabaseNames) {
    this.authorization = urlAuthorization(couch.config.url);
    this.base = `${redactedUrl(couch.config.url)}/${encodeURIComponent(names.incoming)}`;
  }

  async forward(request: ForwardRequest): Promise<ForwardResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    if (request.contentType) headers['content-type'] = request.contentType;
    let response: Response;
    try {
      response = await fetch(`${this.base}${request.subpath}${request.search}`, {
        method: request.method,
        headers,
        ...(request.body && request.method !== 'GET' && request.method !== 'HEAD' ? { body: new Uint8Array(request.body) } : {}),
        redirect: 'error',
        // A store that stops answering must not hold the replicator's request for good: it
        // retries a failed request, and the node's own requests are bounded as long (requestTimeout).
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
    } catch (error) {
      // No answer at all (the store is down or restarting): 503 with Retry-After, as for every store call.
      throw mapCouchError(error, 'forward a replication request to the incoming database');
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: response.body ? Readable.fromWeb(response.body as import('node:stream/web').ReadableStream) : null,
    };
  }
}
