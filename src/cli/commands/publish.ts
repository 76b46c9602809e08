/** lr-node publish URL FILE...: batches within the node's limits, a rejects report, resumable. */
import fs from 'node:fs';
import path from 'node:path';
import { readDocumentFile, type DocumentFile } from '../document-files.js';
import { prepareDocument, readSigningKey, type SigningKey } from '../document-signing.js';
import { refusedError, usageError, CliError } from '../errors.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { endpoint, jsonOf, request, Interrupted, type RetryPolicy } from '../http-client.js';
import { watchInterrupt } from '../interrupt.js';
import { publishLimits, readServices } from '../node-services.js';
import { createProgress } from '../progress.js';
import { nextBatch, requestBody } from '../publish-batches.js';
import { readState, writeState } from '../state-file.js';

export interface PublishOptions {
  url: string;
  files: string[];
  authorization: string | undefined;
  signKey?: string;
  keyLocation: string[];
  keyPassphrase?: string;
  state: string;
  report: string;
  batchSize?: number;
  json: boolean;
  policy: RetryPolicy;
}

interface PublishState {
  version: 1;
  url: string;
  files: { path: string; sha256: string; count: number }[];
  acknowledged: number;
  accepted: number;
  rejected: number;
}

interface Position { file: DocumentFile; index: number }

function positions(files: DocumentFile[]): Position[] {
  return files.flatMap((file) => file.documents.map((_doc, index) => ({ file, index })));
}

function startingState(options: PublishOptions, files: DocumentFile[]): PublishState {
  const fresh: PublishState = {
    version: 1, url: options.url, acknowledged: 0, accepted: 0, rejected: 0,
    files: files.map((f) => ({ path: path.resolve(f.path), sha256: f.sha256, count: f.documents.length })),
  };
  const saved = readState<PublishState>(options.state);
  if (!saved) {
    fs.rmSync(options.report, { force: true });
    return fresh;
  }
  const same = saved.version === 1 && saved.url === fresh.url && JSON.stringify(saved.files) === JSON.stringify(fresh.files);
  if (!same) throw usageError(`the state file ${options.state} belongs to another publish (URL or files differ): remove it or give --state`);
  return saved;
}

function appendReport(file: string, lines: string[]): void {
  if (lines.length === 0) return;
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, lines.join(''));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

interface DocumentResult { doc_ID?: string | null; OK?: boolean; error?: string }

export async function publish(options: PublishOptions): Promise<ExitCode> {
  const files = options.files.map(readDocumentFile);
  const key: SigningKey | undefined = options.signKey ? readSigningKey(options.signKey, options.keyLocation, options.keyPassphrase) : undefined;
  const state = startingState(options, files);
  const acknowledgedBefore = state.acknowledged;
  const all = positions(files);
  const progress = createProgress('publish', 'sent', { json: options.json });
  const interrupt = watchInterrupt(false, () => progress.note('publish: interrupted, saving after the request in flight (Ctrl-C again to abort it)'));
  const policy: RetryPolicy = { ...options.policy, signal: interrupt.signal, onRetry: (reason, delay) => progress.note(`publish: ${reason}, retrying in ${Math.round(delay / 1000)}s`) };
  try {
    if (state.acknowledged < all.length) {
      const limits = publishLimits(await readServices(options.url, policy));
      const docLimit = Math.min(limits.docLimit, options.batchSize ?? limits.docLimit);
      const target = endpoint(options.url, 'publish');
      const prepared = new Map<number, string>();
      progress.update({ done: state.acknowledged, total: all.length, accepted: state.accepted, rejected: state.rejected });
      while (state.acknowledged < all.length) {
        if (interrupt.requested()) throw new Interrupted();
        for (let i = state.acknowledged; i < Math.min(all.length, state.acknowledged + docLimit); i += 1) {
          if (prepared.has(i)) continue;
          const { file, index } = all[i]!;
          prepared.set(i, JSON.stringify(await prepareDocument(file.documents[index], file.sha256, index, key)));
        }
        const step = nextBatch((i) => prepared.get(i)!, state.acknowledged, all.length, docLimit, limits.msgSizeLimit);
        const reports: string[] = [];
        let count: number;
        if (step.kind === 'too-large') {
          const { file, index } = all[step.index]!;
          reports.push(`${JSON.stringify({ file: file.path, index, doc_ID: null, error: `larger than the node's msg_size_limit (${step.bytes} > ${limits.msgSizeLimit} bytes): not sent`, document: file.documents[index] })}\n`);
          state.rejected += 1;
          count = 1;
        } else {
          const results = await send(target, requestBody(step.batch), options.authorization, policy);
          count = step.batch.serialized.length;
          if (results.length !== count) throw refusedError(`the node answered ${results.length} results for ${count} documents`);
          results.forEach((result, offset) => {
            if (result.OK === true) { state.accepted += 1; return; }
            state.rejected += 1;
            const { file, index } = all[step.batch.start + offset]!;
            reports.push(`${JSON.stringify({ file: file.path, index, doc_ID: result.doc_ID ?? null, error: result.error ?? 'rejected', document: file.documents[index] })}\n`);
          });
        }
        for (let i = state.acknowledged; i < state.acknowledged + count; i += 1) prepared.delete(i);
        appendReport(options.report, reports);
        state.acknowledged += count;
        writeState(options.state, state);
        progress.update({ done: state.acknowledged, total: all.length, accepted: state.accepted, rejected: state.rejected });
      }
    }
  } catch (error) {
    if (error instanceof Interrupted || interrupt.requested()) {
      throw new CliError(`interrupted after ${state.acknowledged} of ${all.length} documents (state in ${options.state}): run the same command again to send the rest`, EXIT.interrupted);
    }
    throw error;
  } finally {
    progress.stop();
    interrupt.dispose();
  }
  const summary = { OK: state.rejected === 0, url: options.url, documents: all.length, sent: state.acknowledged - acknowledgedBefore, accepted: state.accepted, rejected: state.rejected, report: state.rejected > 0 ? options.report : null, state: options.state };
  const outcome = `${state.accepted} accepted, ${state.rejected} rejected${state.rejected > 0 ? ` (see ${options.report})` : ''}`;
  // A rerun after every document was acknowledged sends nothing: it says so, not that it published.
  const text = all.length > 0 && acknowledgedBefore === all.length
    ? `nothing sent: the ${all.length} documents were sent to ${options.url} by an earlier run (state in ${options.state}): ${outcome}\n`
    : `published ${all.length} documents to ${options.url}: ${outcome}\n`;
  process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : text);
  return state.rejected > 0 ? EXIT.refused : EXIT.ok;
}

async function send(target: string, body: string, authorization: string | undefined, policy: RetryPolicy): Promise<DocumentResult[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (authorization) headers.authorization = authorization;
  const answer = await request(target, { method: 'POST', headers, body }, policy);
  if (answer.status === 401 || answer.status === 403) throw refusedError(`not authorized (${answer.status}): give a publisher account with --user or LR_USER and LR_PASSWORD`);
  const result = jsonOf(answer, 'POST /publish');
  if (answer.status !== 200 || result.OK !== true) throw refusedError(`the node refused the request: ${typeof result.error === 'string' ? result.error : `HTTP ${answer.status}`}`);
  if (!Array.isArray(result.document_results)) throw refusedError('the answer has no document_results');
  return result.document_results as DocumentResult[];
}
