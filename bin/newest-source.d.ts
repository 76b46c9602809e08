/** Types of bin/newest-source.js (plain JS, run before anything is built), for test/support/cli.ts. */
export function newestSource(dir: string): number;
