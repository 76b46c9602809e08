/**
 * The optional monitoring listener (MONITORING_PORT): /metrics and /dashboard without
 * credentials, bound to 127.0.0.1 only, so a local Prometheus or an SSH tunnel reaches them and
 * nothing else of the node is on that port.
 */
import http from 'node:http';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import type { Deps } from './deps.js';
import type { NodeState } from './http/context.js';
import { requestContext } from './http/request-context.js';
import { jsonErrorExit } from './http/error-exit.js';
import { monitoringRoutes } from './services/monitoring/monitoring.routes.js';
import { namingSetting } from './errors/exit-codes.js';

export const MONITORING_HOST = '127.0.0.1';

export async function listenMonitoring(deps: Deps, port: number): Promise<{ server: http.Server; url: string }> {
  const app = new Koa<NodeState>();
  app.silent = true;
  app.use(requestContext(deps.logger));
  app.use(jsonErrorExit());
  const router = monitoringRoutes(deps.monitoring, undefined);
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(namingSetting(error, 'MONITORING_PORT')));
    server.listen(port, MONITORING_HOST, () => resolve());
  });
  return { server, url: `http://${MONITORING_HOST}:${(server.address() as AddressInfo).port}` };
}
