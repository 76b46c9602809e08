/**
 * The external programs the tests drive as independent peers, and the one policy for them:
 * `npm test` and CI install them (scripts/test-prerequisites.sh), and a test that needs one that
 * is missing fails naming the Debian package to install. It never skips, and never passes
 * without the program (a spawn that failed to start is not a program's "no").
 */
import fs from 'node:fs';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

interface Program {
  /** The command run to see whether it is there; `anyStatus`: its exit status does not matter (only that it started). */
  probe?: { command: string; args: string[]; anyStatus?: boolean };
  /** A program found by its path rather than run. */
  path?: string;
  debian: string;
}

export const PROGRAMS = {
  xmllint: { probe: { command: 'xmllint', args: ['--version'] }, debian: 'libxml2-utils' },
  oai_pmh: { probe: { command: 'oai_pmh', args: ['--help'], anyStatus: true }, debian: 'libhttp-oai-perl' },
  'Atompub::Client': { probe: { command: 'perl', args: ['-MAtompub::Client', '-MXML::Atom::Client', '-e1'] }, debian: 'libatompub-perl' },
  chromium: { path: '/usr/bin/chromium', debian: 'chromium' },
  script: { probe: { command: 'script', args: ['--version'] }, debian: 'bsdutils' },
  openssl: { probe: { command: 'openssl', args: ['version'] }, debian: 'openssl' },
  gpg: { probe: { command: 'gpg', args: ['--version'] }, debian: 'gpg' },
  prlimit: { probe: { command: 'prlimit', args: ['--version'] }, debian: 'util-linux' },
  // Debian's own python3 (a pyenv or venv python3 earlier on PATH lacks Debian's modules).
  oauthlib: { probe: { command: '/usr/bin/python3', args: ['-c', 'import oauthlib'] }, debian: 'python3-oauthlib' },
} satisfies Record<string, Program>;

export type ProgramName = keyof typeof PROGRAMS;

const present = new Map<ProgramName, boolean>();

function isPresent(name: ProgramName): boolean {
  const program: Program = PROGRAMS[name];
  if (program.path) return fs.existsSync(program.path);
  const probe = program.probe as NonNullable<Program['probe']>;
  const result = spawnSync(probe.command, probe.args, { stdio: 'ignore', timeout: 30_000 });
  return !result.error && (probe.anyStatus === true || result.status === 0);
}

/** Throws (the test fails) unless the program is installed. */
export function requireProgram(name: ProgramName): void {
  let found = present.get(name);
  if (found === undefined) present.set(name, found = isPresent(name));
  if (!found) throw new Error(`${name} is missing: apt-get install ${PROGRAMS[name].debian} (npm test's scripts/test-prerequisites.sh does)`);
}

/**
 * Runs a required program synchronously, with `input` on its standard input. Never for a program
 * that talks to a node answering from this same process (it would wait for itself).
 */
export function runProgram(name: ProgramName, command: string, args: string[], input?: string): SpawnSyncReturns<string> {
  requireProgram(name);
  const result = spawnSync(command, args, { input, encoding: 'utf8' });
  if (result.error) throw new Error(`${command} did not run: ${result.error.message}`);
  return result;
}
