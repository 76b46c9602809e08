/**
 * The content encodings the node's responses are offered in (src/http/compression.ts), also
 * advertised by OAI-PMH Identify as <compression> (OAI-PMH 2.0 §4.2).
 */
export const RESPONSE_ENCODINGS = ['gzip', 'deflate'] as const;
