/**
 * CPU time by process, from /proc: what each process of a benchmark (the store, the node or a
 * front, the benchmark's own client) spent on a measured stretch. On this project's 2-core
 * machine the three share the cores, so a ratio is often the raw side's CPU over ours: these
 * figures show where it goes.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, the unit of /proc's CPU times on Linux

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat; 0 once it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/** The processes measured, by role; a role whose pid is unknown (a CouchDB without BENCH_COUCHDB_PID) is left out. */
export type Processes = Record<string, number | undefined>;

/**
 * Starts measuring; `per(count, unit)` gives each process's CPU milliseconds per `unit` since then,
 * e.g. `store 41.8, node 13.4, client 4.9 CPU ms per page`.
 */
export function cpuMeter(processes: Processes): { per(count: number, unit: string): string } {
  const known = Object.entries(processes).filter((entry): entry is [string, number] => entry[1] !== undefined);
  const start = known.map(([, pid]) => cpuSeconds(pid));
  return {
    per(count: number, unit: string): string {
      const parts = known.map(([role, pid], index) => `${role} ${(((cpuSeconds(pid) - (start[index] ?? 0)) * 1000) / Math.max(1, count)).toFixed(1)}`);
      return `${parts.join(', ')} CPU ms per ${unit}`;
    },
  };
}
