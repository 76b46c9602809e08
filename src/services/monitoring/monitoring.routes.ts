/**
 * GET /metrics (Prometheus text format) and GET /dashboard, for network_admin accounts of the
 * node (Basic or Bearer, like POST /distribute), or for anyone reaching the loopback-only
 * monitoring port (MONITORING_PORT) where `open` is set. The dashboard's script and style sheets
 * are files of the node (uPlot from its npm package): no CDN.
 */
import Router from '@koa/router';
import type { NodeState, NodeContext } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import { AppError } from '../../errors/app-error.js';
import { DASHBOARD_ASSETS, DASHBOARD_CSP, dashboardPage } from '../../protocol/html/dashboard-page.js';
import type { Monitoring } from './wiring.js';

/** `gate` is unset on the loopback-only monitoring port only: no credentials asked there. */
export function monitoringRoutes(monitoring: Monitoring, gate: Gate | undefined): Router<NodeState> {
  const router = new Router<NodeState>();
  const { service, assets, nodeName } = monitoring;
  const allowed = async (ctx: NodeContext): Promise<void> => {
    if (gate) ctx.state.principal = await gate.admit(ctx.get('authorization'), 'administer', ctx.ip);
  };
  router.get('/metrics', async (ctx) => {
    await allowed(ctx);
    const { contentType, body } = await service.metricsText();
    ctx.type = contentType;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
  router.get('/dashboard', async (ctx) => {
    await allowed(ctx);
    const data = await service.dashboard(nodeName);
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = dashboardPage(data);
  });
  router.get(`${DASHBOARD_ASSETS}/:name`, (ctx) => {
    const asset = assets.get(ctx.params.name ?? '');
    if (!asset) throw new AppError(404, 'not_found', `no such dashboard asset: ${ctx.params.name ?? ''}`);
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = asset.body;
  });
  return router;
}
