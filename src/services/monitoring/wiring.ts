/** Monitoring's objects, built once per node process (src/deps.ts): a registry of its own, never prom-client's global one. */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Registry } from 'prom-client';
import type { Couch } from '../../storage/couch.js';
import type { DatabaseNames } from '../../storage/databases.js';
import type { ViewReader } from '../../storage/view-reader.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import { MonitoringRepository } from '../../storage/monitoring-repository.js';
import type { Clock } from '../../domain/timestamps.js';
import { NodeMetrics } from '../../monitoring/node-metrics.js';
import { DailyCounts } from './daily-counts.js';
import { MonitoringService } from './monitoring.service.js';

export interface Asset { type: string; body: Buffer }

export interface Monitoring { metrics: NodeMetrics; service: MonitoringService; assets: Map<string, Asset>; nodeName: string }

export interface MonitoringInput {
  couch: Couch;
  names: DatabaseNames;
  /** Bounded view reads (storage/view-reader.ts). */
  views: ViewReader;
  nodes: NodeRepository;
  resources: ResourceRepository;
  clock: Clock;
  projectRoot: string;
  nodeName: string;
  /** The supervisor of the embedded store this process started; unset with Apache CouchDB. */
  store: { readonly restartCount: number } | undefined;
}

/** The dashboard's script and style sheets, read once: uPlot from its npm package, ours from public/dashboard/. */
function dashboardAssets(projectRoot: string): Map<string, Asset> {
  const uplot = path.dirname(createRequire(import.meta.url).resolve('uplot'));
  const own = path.join(projectRoot, 'public', 'dashboard');
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  const files: [string, string, string][] = [
    ['uPlot.iife.min.js', path.join(uplot, 'uPlot.iife.min.js'), js],
    ['uPlot.min.css', path.join(uplot, 'uPlot.min.css'), css],
    ['dashboard.js', path.join(own, 'dashboard.js'), js],
    ['dashboard.css', path.join(own, 'dashboard.css'), css],
    // The page names its icon, so browsers do not ask for /favicon.ico (a 404 in their console).
    ['icon.svg', path.join(own, 'icon.svg'), 'image/svg+xml'],
  ];
  return new Map(files.map(([name, file, type]) => [name, { type, body: fs.readFileSync(file) }]));
}

export function buildMonitoring(input: MonitoringInput): Monitoring {
  const metrics = new NodeMetrics(new Registry(), input.store);
  const store = new MonitoringRepository(input.couch, input.names, input.views);
  const service = new MonitoringService(metrics, store, input.nodes, input.resources, new DailyCounts(store, input.clock), input.store);
  return { metrics, service, assets: dashboardAssets(input.projectRoot), nodeName: input.nodeName };
}
