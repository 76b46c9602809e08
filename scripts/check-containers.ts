/**
 * npm run lint:containers: checks Dockerfile, .dockerignore and docker-compose.yml without a
 * Docker engine (none runs on the project's machines; .ci/run calls this).
 *  1. dockerfile-utils (the validator behind the Dockerfile language server): syntax, flags and
 *     arguments of every instruction; its warnings fail too.
 *  2. What the node's image must be (issue 11): multi-stage, `npm ci --omit=dev` in the final
 *     stage, a non-root USER, a HEALTHCHECK on /status; every file it COPYs from the build context
 *     exists and is let through by .dockerignore (an allowlist).
 *  3. `docker-compose config` (Debian's docker-compose 1.29) validates the compose file against the
 *     Compose schema; then: the node is built here and starts after CouchDB 3.5 is healthy, data
 *     CouchDB's data lives in a named volume, and every bind-mounted file exists.
 * Exit 1 with one line per problem. `tsx scripts/check-containers.ts DIR` checks DIR's files instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { parse } from 'yaml';
import { EXIT } from '../src/errors/exit-codes.js';

// The project root, or another directory holding the same files (to try the checks on a variant).
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const problems: string[] = [];
const fail = (where: string, message: string): void => { problems.push(`${where}: ${message}`); };

function lineOf(instruction: Instruction): number {
  return instruction.getRange().start.line + 1;
}

/** Sources of COPY/ADD from the build context (not --from=stage), without flags and destination. */
function contextSources(instruction: Instruction): string[] {
  const fromStage = (instruction as { getFromFlag?: () => unknown }).getFromFlag?.();
  const args = instruction.getArguments().map((a) => a.getValue()).filter((value) => !value.startsWith('--'));
  return fromStage ? [] : args.slice(0, -1);
}

/** .dockerignore as an allowlist: `*` first, then `!path` lines; a source passes when it or a parent is re-included. */
function allowedByDockerignore(source: string, lines: string[]): boolean {
  if (lines[0] !== '*') return true;
  const clean = source.replace(/^\.\//, '').replace(/\/+$/, '');
  return lines.slice(1).filter((line) => line.startsWith('!')).map((line) => line.slice(1).replace(/\/+$/, ''))
    .some((allowed) => clean === allowed || clean.startsWith(`${allowed}/`));
}

function checkDockerfile(): void {
  const file = path.join(root, 'Dockerfile');
  const content = fs.readFileSync(file, 'utf8');
  for (const diagnostic of validate(content)) fail(`Dockerfile:${diagnostic.range.start.line + 1}`, typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value);

  const dockerfile = DockerfileParser.parse(content);
  const instructions = dockerfile.getInstructions();
  const froms = instructions.filter((i) => i.getKeyword() === 'FROM');
  if (froms.length < 2) fail('Dockerfile', 'not multi-stage: build in one stage, run from a stage with production dependencies only');
  const last = froms[froms.length - 1];
  const final = last ? instructions.filter((i) => lineOf(i) > lineOf(last)) : [];
  const args = (i: Instruction): string => i.getArgumentsContent() ?? '';
  if (!final.some((i) => i.getKeyword() === 'RUN' && /\bnpm ci\b[^&;]*--omit=dev/.test(args(i)))) fail('Dockerfile', 'the final stage must install with `npm ci --omit=dev`');
  const users = final.filter((i) => i.getKeyword() === 'USER');
  const user = users.length ? args(users[users.length - 1] as Instruction).split(':')[0] : 'root';
  if (user === 'root' || user === '0') fail('Dockerfile', 'the final stage must run as a non-root USER');
  const healthcheck = final.filter((i) => i.getKeyword() === 'HEALTHCHECK');
  if (!healthcheck.some((i) => /\/status\b/.test(args(i)))) fail('Dockerfile', 'the final stage needs a HEALTHCHECK on /status');

  // COPY --from=NAME: a stage declared before it (a name with no `:` or `/` is not an image).
  const stages = froms.map((from) => /\bAS\s+(\S+)/i.exec(args(from))?.[1]?.toLowerCase());
  for (const copy of instructions.filter((i) => i.getKeyword() === 'COPY')) {
    const stage = ((copy as { getFromFlag?: () => { getValue(): string | null } | null }).getFromFlag?.()?.getValue() ?? '').toLowerCase();
    if (stage && !/[:/]|^\d+$/.test(stage) && !stages.slice(0, froms.filter((f) => lineOf(f) < lineOf(copy)).length).includes(stage)) fail(`Dockerfile:${lineOf(copy)}`, `COPY --from=${stage}: no earlier stage has that name`);
  }

  const ignoreFile = path.join(root, '.dockerignore');
  if (!fs.existsSync(ignoreFile)) fail('.dockerignore', 'missing: node_modules, data and .git would be sent to the build');
  const ignore = fs.existsSync(ignoreFile) ? fs.readFileSync(ignoreFile, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')) : [];
  for (const copy of instructions.filter((i) => i.getKeyword() === 'COPY' || i.getKeyword() === 'ADD')) {
    for (const source of contextSources(copy)) {
      if (!fs.existsSync(path.join(root, source))) fail(`Dockerfile:${lineOf(copy)}`, `COPY source ${source} does not exist`);
      else if (!allowedByDockerignore(source, ignore)) fail(`Dockerfile:${lineOf(copy)}`, `COPY source ${source} is excluded by .dockerignore`);
    }
  }
}

interface ComposeService {
  image?: string; build?: { context?: string; dockerfile?: string };
  depends_on?: Record<string, { condition?: string }>; healthcheck?: { test?: unknown };
  volumes?: (string | { type?: string; source?: string })[];
}

function composeConfig(): string | undefined {
  try {
    // The file requires an admin password; a placeholder lets `config` resolve it.
    return execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { cwd: root, encoding: 'utf8', env: { ...process.env, COUCHDB_ADMIN_PASSWORD: 'placeholder', PUBLIC_URL: 'https://lr.example.org' }, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { code?: string; stderr?: string };
    fail('docker-compose.yml', e.code === 'ENOENT' ? 'docker-compose is not installed (Debian: apt-get install docker-compose)' : `docker-compose config: ${e.stderr?.trim() ?? String(error)}`);
    return undefined;
  }
}

function checkCompose(): void {
  const resolved = composeConfig();
  if (!resolved) return;
  const compose = parse(resolved) as { services?: Record<string, ComposeService>; volumes?: Record<string, unknown> };
  const services = compose.services ?? {};
  const couchdb = services.couchdb;
  const node = services.node;
  if (!couchdb || !/^couchdb:3\.5(\.|$)/.test(couchdb.image ?? '')) fail('docker-compose.yml', 'a couchdb service with image couchdb:3.5 is required');
  if (couchdb && !couchdb.healthcheck?.test) fail('docker-compose.yml', 'the couchdb service needs a healthcheck (the node waits for it)');
  if (!node?.build) fail('docker-compose.yml', 'the node service must be built from the Dockerfile');
  else if (!fs.existsSync(path.join(node.build.context ?? root, node.build.dockerfile ?? 'Dockerfile'))) fail('docker-compose.yml', 'the node\'s build context has no Dockerfile');
  if (node?.depends_on?.couchdb?.condition !== 'service_healthy') fail('docker-compose.yml', 'the node must depend on couchdb with condition: service_healthy');
  for (const [name, service] of Object.entries(services)) {
    for (const volume of service.volumes ?? []) {
      const [source] = typeof volume === 'string' ? volume.split(':') : [volume.source];
      if (!source) continue;
      if (source.startsWith('/') || source.startsWith('.')) {
        if (!fs.existsSync(source)) fail('docker-compose.yml', `${name} mounts ${source}, which does not exist`);
      } else if (!(source in (compose.volumes ?? {}))) fail('docker-compose.yml', `${name} uses volume ${source}, which is not declared`);
    }
  }
  const named = (service: ComposeService | undefined): boolean => (service?.volumes ?? []).some((v) => typeof v === 'string' && !/^[/.]/.test(v));
  // With COUCHDB_URL set the node keeps nothing on its own disk: only CouchDB needs a volume.
  if (!named(couchdb)) fail('docker-compose.yml', 'couchdb keeps its data in a named volume');
}

checkDockerfile();
checkCompose();
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(EXIT.failure);
}
process.stdout.write('Dockerfile, .dockerignore and docker-compose.yml: OK\n');
