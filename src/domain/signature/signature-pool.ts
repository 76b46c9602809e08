/**
 * Proxy signing and signature verification off the event loop (issue 19): a pool of worker
 * threads (SIGNATURE_WORKERS, src/config/settings.ts: by default the cores beyond two), each
 * running signature-jobs.ts with its own key caches. A job goes to the worker with the fewest
 * jobs in flight. Workers start on first use, hold the process open only while they have work,
 * end after a while without work, and a worker that dies fails its own jobs only (the next job
 * starts a new one). Size 0 runs the jobs on the calling thread, with the same results.
 *
 * The worker is signature-worker.js beside this module in a build (dist/), and the .ts source under
 * tsx (tests, `npm run dev`, benchmarks).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SignatureError } from './lr-pgp.js';
import type { VerifyOptions, VerifyResult } from './lr-pgp-verify.js';
import { SignatureJobs, type SignatureJob, type SignOutcome } from './signature-jobs.js';

interface Pending { resolve(value: unknown): void; reject(error: Error): void }
interface PoolWorker { worker: Worker; pending: Map<number, Pending>; idle?: NodeJS.Timeout }

/** A worker without work for this long ends (its memory and key caches with it); the next job starts one. */
const IDLE_MS = 30_000;
type Reply = { id: number; result: unknown } | { id: number; error: { name: string; message: string } };

/**
 * The worker: signature-worker.js of a build, or, when this module runs as TypeScript source,
 * a small bootstrap that registers tsx in the worker before importing signature-worker.ts (Node
 * 20 does not apply the parent's `--import tsx` loader to a worker's entry module).
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./signature-worker.js', import.meta.url));
  // tsx's ESM API as an `import` resolves it (its CommonJS build registers a wrong path when
  // imported); read from tsx's exports, as this module may itself run as CommonJS under tsx
  // (mocha), where import.meta.resolve is missing.
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']?.import.default ?? '')).href;
  const entry = new URL('./signature-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`, { eval: true });
}

export class SignaturePool {
  private readonly workers: PoolWorker[] = [];
  private readonly inline: SignatureJobs | undefined;
  private nextId = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 0) throw new Error(`signature pool size must be a whole number, not ${size}`);
    this.inline = size === 0 ? new SignatureJobs() : undefined;
  }

  /** Worker threads running now (they start on first use and end when idle). */
  get runningWorkers(): number { return this.workers.length; }

  /** The signature block for `doc` (any existing one is ignored), made with the armored private key. */
  sign(doc: Record<string, unknown>, privateKey: string, passphrase: string | undefined, keyLocations: string[]): Promise<SignOutcome> {
    return this.run({ op: 'sign', doc, privateKey, ...(passphrase !== undefined ? { passphrase } : {}), keyLocations }) as Promise<SignOutcome>;
  }

  /** verifyEnvelopeSignature, each distinct armored key parsed once per worker. */
  verify(doc: unknown, publicKeys: string[], options?: VerifyOptions): Promise<VerifyResult> {
    return this.run({ op: 'verify', doc, publicKeys, ...(options ? { options } : {}) }) as Promise<VerifyResult>;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.splice(0).map((entry) => entry.worker.terminate()));
  }

  private run(job: SignatureJob): Promise<unknown> {
    if (this.inline) return this.inline.run(job);
    if (this.closed) return Promise.reject(new Error('the signature pool is closed'));
    const entry = this.pick();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (entry.pending.size === 0) { entry.worker.ref(); clearTimeout(entry.idle); }
      entry.pending.set(id, { resolve, reject });
      entry.worker.postMessage({ id, job });
    });
  }

  private pick(): PoolWorker {
    let best: PoolWorker | undefined;
    for (const entry of this.workers) if (!best || entry.pending.size < best.pending.size) best = entry;
    if (best && (best.pending.size === 0 || this.workers.length >= this.size)) return best;
    return this.start();
  }

  private start(): PoolWorker {
    const worker = startWorker();
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const pending = entry.pending.get(reply.id);
      if (!pending) return;
      entry.pending.delete(reply.id);
      if (entry.pending.size === 0) {
        worker.unref();
        entry.idle = setTimeout(() => void worker.terminate(), IDLE_MS).unref();
      }
      if ('error' in reply) {
        const error = reply.error.name === 'SignatureError' ? new SignatureError(reply.error.message) : new Error(reply.error.message);
        pending.reject(error);
      } else {
        pending.resolve(reply.result);
      }
    });
    const fail = (error: Error): void => {
      clearTimeout(entry.idle);
      const index = this.workers.indexOf(entry);
      if (index !== -1) this.workers.splice(index, 1);
      for (const pending of entry.pending.values()) pending.reject(error);
      entry.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`signature worker exited (${code})`)));
    this.workers.push(entry);
    return entry;
  }
}
