/**
 * Starts bench/lib/minimal-front.ts in its own process, as the node is: the least any Node.js
 * front of the store does for a request, against which a ratio goal can be read (bench/floor,
 * bench/harvest).
 */
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface FrontSettings {
  store: string;
  auth: string;
  db: string;
  transport: 'undici' | 'fetch';
  connections: number;
  /** Records per JSON listrecords page. */
  page?: number;
}

export async function startFront(settings: FrontSettings): Promise<{ url: string; child: ChildProcess }> {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'minimal-front.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['pipe', 'pipe', 'inherit'] });
  // The store's credentials go on stdin, out of the child's environment and command line.
  child.stdin!.end(`${JSON.stringify(settings)}\n`);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString('utf8')) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`minimal front (${settings.transport}) exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}
