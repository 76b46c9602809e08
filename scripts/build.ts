/**
 * `npm run build`: tsc → dist/, then removes from dist/ what this build did not write: the output
 * of a module since moved or deleted, which nothing loads but which misleads whoever reads dist/.
 *
 * Pruned after the build, not emptied before it: several node processes may run from one checkout
 * and each `npm start` builds first (docs/scaling.md); emptied first, dist/ would lack the modules
 * a running process loads later (each lr-node command, the signature workers, the embedded store's
 * child) for as long as tsc runs. tsc rewrites every output in place, as it did before this script.
 * A failed build prunes nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const EMITTED = 'TSFILE: ';

/** Removes the files under `dir` that `keep` does not hold, then the directories left empty. */
function prune(dir: string, keep: Set<string>): number {
  let removed = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += prune(full, keep);
      if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
    } else if (!keep.has(full)) {
      fs.rmSync(full);
      removed += 1;
    }
  }
  return removed;
}

const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--listEmittedFiles'], { cwd: ROOT, encoding: 'utf8' });
const lines = `${tsc.stdout ?? ''}`.split('\n');
process.stdout.write(lines.filter((line) => !line.startsWith(EMITTED)).join('\n'));
process.stderr.write(tsc.error ? `build: ${tsc.error.message}\n` : tsc.stderr ?? '');
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const emitted = new Set(lines.filter((line) => line.startsWith(EMITTED)).map((line) => path.resolve(line.slice(EMITTED.length).trim())));
// A build that listed nothing (an option changed tsc's output) is no list to prune by.
const removed = emitted.size > 0 ? prune(DIST, emitted) : 0;
if (removed > 0) process.stdout.write(`build: removed ${removed} file(s) of dist/ this build did not write (modules moved or deleted)\n`);
