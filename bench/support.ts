/** Shared benchmark plumbing: a real node on a fresh embedded store, and the closing line. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/http/logger.js';
import { startNode, type RunningNode } from '../src/runtime.js';

export async function startBenchNode(nodeConfig: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<RunningNode & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-bench-'));
  const configPath = path.join(dataDir, 'bench-config.json');
  fs.writeFileSync(configPath, JSON.stringify(nodeConfig));
  const node = await startNode(loadConfig({ PORT: '0', DATA_DIR: dataDir, CONFIG: configPath, LOG_LEVEL: 'warn', ...env }), createLogger('warn'));
  return { ...node, dataDir };
}

export function basicAuthHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The one closing line every benchmark prints: NAME: <ours> <unit>, raw <raw> <unit>, ratio <ours/raw>. */
export function report(name: string, ours: number, raw: number, unit: string): void {
  process.stdout.write(`${name}: ${round(ours)} ${unit}, raw ${round(raw)} ${unit}, ratio ${round(ours / raw, 2)}\n`);
}
