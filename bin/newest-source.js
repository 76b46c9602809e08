// When the sources were last changed, for the two places that decide whether dist/ was built from
// them: the launcher (bin/lr-node.js, plain JS: it must run before anything is built or compiled)
// and the tests that drive the built binary (test/support/cli.ts). One rule, so the tests rebuild
// exactly when the launcher would call dist/ stale.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The newest modification time of the TypeScript files under `dir` (ms); 0 without any (an image
 * with dist/ alone). Other files (the OAI-PMH schemas) are read from src/ at run time, not built.
 * @param {string} dir
 * @returns {number}
 */
export function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}
