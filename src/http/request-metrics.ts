/**
 * Counts every request in the node's metrics with its service, route pattern (the router's
 * matched path, so `/OAI-PMH` and not each query; unmatched paths share one label) and final
 * status. Mounted outside the error exit, so the status is the one the client got.
 */
import type { Middleware } from 'koa';
import type { NodeState } from './context.js';
import type { NodeMetrics } from '../monitoring/node-metrics.js';

/** First path segment → service (spec service names; node endpoints are "node"). */
const SERVICES: Record<string, string> = {
  publish: 'publish', delete: 'delete', obtain: 'obtain', slice: 'slice', harvest: 'harvest',
  'OAI-PMH': 'oai_pmh', schemas: 'oai_pmh', swordservice: 'sword', swordpub: 'sword',
  distribute: 'distribute', destination: 'distribute', incoming: 'distribute',
  status: 'node', services: 'node', description: 'node', pubkey: 'node', auth: 'auth',
  metrics: 'monitoring', dashboard: 'monitoring',
};

export function requestMetrics(metrics: NodeMetrics): Middleware<NodeState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute;
      const segment = ctx.path.split('/')[1] ?? '';
      const service = SERVICES[segment] ?? 'none';
      // The inbound endpoint is a middleware, not a route: one label for its whole tree.
      const route = typeof matched === 'string' ? matched : segment === 'incoming' ? '/incoming/*' : 'unmatched';
      metrics.request({ service, route, method: ctx.method, status: ctx.status }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
