/**
 * Files of resource data description documents: `{"documents": [...]}` (a publish request body),
 * a JSON array, or JSON Lines (one document a line; what `lr-node harvest` writes, as records).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { usageError } from './errors.js';

export interface DocumentFile { path: string; sha256: string; documents: unknown[] }

function parseLines(text: string, file: string): unknown[] {
  const documents: unknown[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      documents.push(JSON.parse(line));
    } catch {
      throw usageError(`${file}:${index + 1}: not JSON (expected {"documents": [...]}, a JSON array or JSON Lines)`);
    }
  });
  return documents;
}

export function parseDocuments(text: string, file: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(trimmed);
    } catch {
      return parseLines(text, file); // several JSON values: JSON Lines
    }
    if (Array.isArray(whole)) return whole;
    const record = whole as Record<string, unknown>;
    if (Array.isArray(record.documents)) return record.documents;
    return [whole];
  }
  return parseLines(text, file);
}

export function readDocumentFile(file: string): DocumentFile {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(file);
  } catch (error) {
    throw usageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return { path: file, sha256: createHash('sha256').update(buffer).digest('hex'), documents: parseDocuments(buffer.toString('utf8'), file) };
}

/** A harvested record (`{"header", "resource_data"}`) stands for its document. */
export function unwrapRecord(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && 'header' in value && 'resource_data' in value) return (value as { resource_data: unknown }).resource_data;
  return value;
}
