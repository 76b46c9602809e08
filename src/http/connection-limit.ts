/**
 * How many client connections the node holds at once (Node's `server.maxConnections`): half the
 * process's open-files limit, less a reserve. A request being answered may hold a socket to the
 * store besides its own (nano's agent has no cap), and the store, the log and the monitoring
 * port need descriptors too. Without a limit an audit's 300 idle sockets under `ulimit -n 256`
 * took every descriptor: the node could not reach its own store, and every request that needed
 * it, those that got through included, answered 503 until the idle sockets timed out (90 s).
 * Past the limit Node closes a new connection at once, and the node goes on answering the others.
 */
import fs from 'node:fs';

/** Descriptors kept for the store's sockets beyond one per connection, files and the monitoring port. */
const RESERVED_DESCRIPTORS = 64;
/** A limit under this would refuse ordinary use: a process allowed so few files gets no limit from here. */
const SMALLEST_LIMIT = 32;

/** The soft "Max open files" of /proc/self/limits (Linux), or undefined (unlimited, or not Linux). */
export function openFilesLimit(limits: string | undefined): number | undefined {
  const soft = /^Max open files\s+(\d+)\s/m.exec(limits ?? '')?.[1];
  return soft === undefined ? undefined : Number(soft);
}

export function connectionLimit(openFiles: number | undefined): number | undefined {
  if (openFiles === undefined) return undefined;
  const limit = Math.floor((openFiles - RESERVED_DESCRIPTORS) / 2);
  return limit >= SMALLEST_LIMIT ? limit : undefined;
}

/** This process's limit, read once at start-up. */
export function processConnectionLimit(): number | undefined {
  let limits: string | undefined;
  try {
    limits = fs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  return connectionLimit(openFilesLimit(limits));
}
