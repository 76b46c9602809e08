/** Runs src/main.ts as a real process (through tsx), for configuration, signal and sample-data tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { storeEnvOf } from './store.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface NodeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  embeddedPid: number | undefined;
}

/**
 * Runs main.ts on the suite's store (support/store.ts) unless `env` names a CouchDB itself.
 * `launcher`: a command that runs node after it (e.g. prlimit with its options).
 */
export function runMain(env: Record<string, string>, args: string[] = [], detached = false, launcher: string[] = []): ChildProcess {
  const store = storeEnvOf(env);
  const [command = process.execPath, ...before] = [...launcher, process.execPath];
  return spawn(command, [...before, '--import', 'tsx', path.join(ROOT, 'src/main.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...store, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
}

export function exitOf(child: ChildProcess, timeoutMs = 30000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) { resolve({ code: child.exitCode, signal: null }); return; }
    const timer = setTimeout(() => reject(new Error('process did not exit in time')), timeoutMs);
    child.once('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal }); });
  });
}

/** Resolves once the process has logged a line with this message. */
export async function waitForLog(running: NodeProcess, message: string, timeoutMs = 30000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const line of running.output().split('\n')) {
      if (line.includes(`"msg":"${message}"`)) return JSON.parse(line) as Record<string, unknown>;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no "${message}" in the log: ${running.output().slice(-1000)}`);
}

/** Starts main.ts and resolves once it logs "node listening". */
/** `detached`: the node leads a process group of its own, as a command started at a terminal does. */
export function startMain(env: Record<string, string>, args: string[] = [], timeoutMs = 60000, detached = false, launcher: string[] = []): Promise<NodeProcess> {
  const child = runMain({ PORT: '0', LOG_LEVEL: 'info', ...env }, args, detached, launcher);
  let out = '';
  let embeddedPid: number | undefined;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`node did not start: ${out.slice(-2000)}`)); }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string; storePid?: number };
          if (entry.msg === 'embedded store listening') embeddedPid = entry.storePid;
          if (entry.msg === 'node listening' && entry.url) {
            clearTimeout(timer);
            child.stdout?.off('data', onData);
            child.stdout?.on('data', (more: Buffer) => { out += more.toString('utf8'); });
            resolve({ child, url: entry.url, output: () => out, embeddedPid });
          }
        } catch { /* a partial line */ }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`node exited ${code}: ${out.slice(-2000)}`)); });
  });
}
