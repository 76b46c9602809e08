/** Cutting documents into publish requests within the node's `doc_limit` and `msg_size_limit`. */

const ENVELOPE_BYTES = Buffer.byteLength('{"documents":[]}');

export interface Batch { start: number; serialized: string[] }
export type BatchStep = { kind: 'batch'; batch: Batch } | { kind: 'too-large'; index: number; bytes: number };

/**
 * The next request from `start`: as many documents as fit in `docLimit` and `msgSizeLimit` bytes
 * of `{"documents":[...]}`; a document that cannot fit even alone is reported as too large.
 */
export function nextBatch(serializedAt: (index: number) => string, start: number, end: number, docLimit: number, msgSizeLimit: number): BatchStep {
  const serialized: string[] = [];
  let bytes = ENVELOPE_BYTES;
  for (let index = start; index < end && serialized.length < docLimit; index += 1) {
    const text = serializedAt(index);
    const size = Buffer.byteLength(text) + (serialized.length > 0 ? 1 : 0);
    if (bytes + size > msgSizeLimit) {
      if (serialized.length === 0) return { kind: 'too-large', index, bytes: ENVELOPE_BYTES + size };
      break;
    }
    serialized.push(text);
    bytes += size;
  }
  return { kind: 'batch', batch: { start, serialized } };
}

export function requestBody(batch: Batch): string {
  return `{"documents":[${batch.serialized.join(',')}]}`;
}
