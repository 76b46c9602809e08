/**
 * Starts the embedded CouchDB-compatible server in a child process on loopback and keeps it
 * running: when the child exits unexpectedly it is restarted on the same port, so the node's
 * nano URL stays valid and the node recovers by itself (it answers 503 meanwhile).
 */
import { fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';

export interface EmbeddedOptions {
  dataDir: string;
  user: string;
  password: string;
  logger: Logger;
  /** Fixed port for the store; 0 picks a free one at first start. */
  port?: number;
  restartDelayMs?: number;
  /** How long after its start the store compacts what an earlier version left (compaction.ts); 60 s by default. */
  compactionCatchUpDelayMs?: number;
}

const fromSource = import.meta.url.endsWith('.ts');
const childEntry = fileURLToPath(new URL(`./child${fromSource ? '.ts' : '.js'}`, import.meta.url));

/**
 * The child's Node flags. Run from the sources, the child needs tsx's loader: mocha and
 * `node --import tsx` pass it in execArgv, which a fork inherits, but lr-node's launcher
 * (bin/lr-node.js, when dist/ is missing or older than src/) registers tsx inside its own
 * process, so the child got no loader and died at once on `child.ts` (an audit saw every
 * embedded start fail after an in-place upgrade). The loader is named by its resolved URL, so
 * the child finds it whatever the working directory.
 */
export function childExecArgv(execArgv: readonly string[], source: boolean): string[] | undefined {
  if (!source || execArgv.some((flag) => /tsx/.test(flag)) || /tsx/.test(process.env.NODE_OPTIONS ?? '')) return undefined;
  return [...execArgv, '--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
}

/**
 * What a child that exited before listening said: its error line (`TypeError [...]: ...`) when
 * there is one, rather than the last lines of a stack trace (`}  Node.js v20...`), else those.
 */
export function crashReason(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const error = lines.find((line) => /^\s*(?:\w+)?Error\b.*:/.test(line));
  return (error ?? lines.slice(-3).join(' ')).trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The longest wait between two attempts to start the store again. */
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * A child that exits sooner than this after it listened is a restart that failed too: on a full
 * disk the store listened, then died opening its first database, and was started again 200 ms
 * later, about 1.4 times a second for as long as the disk stayed full (an audit; half a core,
 * and a stack in the log at each). Each such exit doubles the wait before the next start, up to
 * MAX_RESTART_DELAY_MS (the first waits 200 ms, as after any exit); a child that lived longer
 * starts the count again.
 */
const STABLE_AFTER_MS = 30_000;

export class EmbeddedCouch {
  private child: ChildProcess | undefined;
  /** True from the child's "listening" message until it exits. */
  private listening = false;
  private port = 0;
  private stopping = false;
  private restarts = 0;
  /** Children in a row that exited within STABLE_AFTER_MS of listening. */
  private shortLived = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly startWaiters = new Set<() => void>();

  constructor(private readonly options: EmbeddedOptions) {}

  /** Base URL of the store, without credentials. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get restartCount(): number {
    return this.restarts;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<string> {
    this.port = this.options.port ?? 0;
    if (this.port === 0) this.port = await freePort();
    await this.spawn();
    return this.url;
  }

  /** Resolves once the (re)started child listens again; used by tests of recovery. */
  whenRunning(): Promise<void> {
    if (this.listening && this.child?.exitCode === null && this.child.signalCode === null) return Promise.resolve();
    return new Promise((resolve) => this.startWaiters.add(resolve));
  }

  private spawn(): Promise<void> {
    // The settings (the admin password among them) go over the IPC channel, never through the
    // child's environment: /proc/<pid>/environ keeps the initial environment for the process's life.
    const settings = { dataDir: this.options.dataDir, port: this.port, user: this.options.user, password: this.options.password, compactionCatchUpDelayMs: this.options.compactionCatchUpDelayMs ?? 60_000 };
    // A process group of its own: Ctrl-C at a terminal signals the node's group, and the node
    // stops the store itself after in-flight requests (a store interrupted first could be seen
    // as crashed and restarted mid-shutdown). It still exits when the node dies: IPC disconnects.
    const execArgv = childExecArgv(process.execArgv, fromSource);
    const child = fork(childEntry, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], detached: true, env: childEnvironment(process.env), ...(execArgv ? { execArgv } : {}) });
    child.send({ type: 'settings', settings });
    this.child = child;
    let stderrTail = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
    });
    return new Promise((resolve, reject) => {
      let listening = false;
      let listeningAt = 0;
      let reported = ''; // what the child said before it exited (its listen error), over IPC
      child.on('message', (message: { type?: string; message?: string }) => {
        if (message.type === 'error' && typeof message.message === 'string') reported = message.message;
        if (message.type === 'listening') {
          listening = true;
          listeningAt = Date.now();
          this.listening = true;
          this.options.logger.info({ port: this.port, storePid: child.pid }, 'embedded store listening');
          for (const waiter of this.startWaiters) waiter();
          this.startWaiters.clear();
          resolve();
        }
      });
      child.on('exit', (code, signal) => {
        if (this.child === child) {
          this.child = undefined;
          this.listening = false;
        }
        if (!listening) {
          // The child exits with the table's code (src/errors/exit-codes.ts, e.g. its port in use): the node exits with it.
          const reason = reported ? `${reported}${this.options.port ? ' (EMBEDDED_COUCH_PORT)' : ''}` : crashReason(stderrTail);
          reject(Object.assign(new Error(`embedded store failed to start (exit ${code ?? signal}): ${reason}`), { exitCode: code }));
          return;
        }
        if (this.stopping) return;
        this.restarts += 1;
        this.shortLived = Date.now() - listeningAt < STABLE_AFTER_MS ? this.shortLived + 1 : 0;
        const base = this.options.restartDelayMs ?? 200;
        // The first exit waits `base`; each later one in a row twice as long as the one before.
        const delayMs = Math.min(base * 2 ** Math.min(Math.max(0, this.shortLived - 1), 16), Math.max(base, MAX_RESTART_DELAY_MS));
        this.options.logger.error({ code, signal, stderr: stderrTail.slice(-500), retryInMs: delayMs }, 'embedded store exited; restarting');
        this.restartAfter(delayMs, 1);
      });
    });
  }

  /**
   * Starts the child again after `delayMs`. A start that fails (its LevelDB lock not released
   * yet, say) is tried again, waiting twice as long each time up to MAX_RESTART_DELAY_MS: one
   * failed restart once left the node without a store for good. A stop cancels the pending start.
   */
  private restartAfter(delayMs: number, attempt: number): void {
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.spawn().catch((error: Error) => {
        const next = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS);
        this.options.logger.error({ err: error.message, attempt, retryInMs: next }, 'embedded store restart failed; trying again');
        this.restartAfter(next, attempt + 1);
      });
    }, delayMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

/**
 * The environment the store child starts with: only what a Node process needs to run, so no
 * setting of the node's (OIDC_CLIENT_SECRET, COUCHDB_PASSWORD, a COUCHDB_URL with credentials)
 * stays readable in /proc/<child>/environ for the child's life.
 */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => CHILD_ENVIRONMENT.test(name)));
}

const CHILD_ENVIRONMENT = /^(PATH|HOME|TMPDIR|TEMP|TMP|LANG|LANGUAGE|LC_[A-Z]+|TZ|NODE_OPTIONS|NODE_EXTRA_CA_CERTS|UV_THREADPOOL_SIZE)$/;
