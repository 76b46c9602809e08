/** Builds the Koa app without listening (tests listen on port 0). Error exit first, then routers. */
import Koa from 'koa';
import type { Deps } from './deps.js';
import type { NodeState } from './http/context.js';
import { requestContext } from './http/request-context.js';
import { untrustedForwardedFor } from './http/forwarded-for.js';
import { jsonErrorExit } from './http/error-exit.js';
import { responseCompression } from './http/compression.js';
import { crossOriginReads } from './http/cross-origin.js';
import { serialiseJsonOnce } from './http/json-once.js';
import { nodeInfoRoutes } from './services/node-info/node-info.routes.js';
import { publishRoutes } from './services/publish/publish.routes.js';
import { swordRoutes } from './services/sword/sword.routes.js';
import { deleteRoutes } from './services/delete/delete.routes.js';
import { sliceRoutes } from './services/slice/slice.routes.js';
import { obtainRoutes } from './services/obtain/obtain.routes.js';
import { harvestRoutes } from './services/harvest/harvest.routes.js';
import { authRoutes } from './services/auth/auth.routes.js';
import { oaiPmhRoutes } from './services/oai-pmh/oai-pmh.routes.js';
import { distributeRoutes } from './services/distribute/distribute.routes.js';
import { inboundProxy } from './services/distribute/inbound-proxy.http.js';
import { INBOUND_PATH } from './services/distribute/destination-info.js';
import { requestMetrics } from './http/request-metrics.js';
import { monitoringRoutes } from './services/monitoring/monitoring.routes.js';

export function createApp(deps: Deps): Koa<NodeState> {
  const app = new Koa<NodeState>();
  // Behind TRUST_PROXY reverse proxies, the client's address is X-Forwarded-For's entry that many
  // from its end (koa: proxy, maxIpsCount): the entries a client wrote itself are further left
  // and never read. Without proxies the header is not believed, and the first one seen is logged.
  app.proxy = deps.trustProxy > 0;
  app.maxIpsCount = deps.trustProxy;
  app.silent = true; // errors are logged by the error exit, with the request id
  app.use(requestContext(deps.logger));
  if (deps.trustProxy === 0) app.use(untrustedForwardedFor(deps.logger));
  app.use(requestMetrics(deps.monitoring.metrics));
  // Outside the error exit, so an error answer to an allowed origin is readable by its page too.
  const crossOrigin = crossOriginReads(deps.corsOrigins);
  if (crossOrigin) app.use(crossOrigin);
  app.use(responseCompression(INBOUND_PATH, deps.compressionLevel));
  app.use(serialiseJsonOnce()); // inside compression: it and koa read the text, not the object
  app.use(jsonErrorExit());
  // The inbound replication endpoint (/incoming/...) streams CouchDB's answers: no router.
  app.use(inboundProxy(deps.distribution.forwarder, deps.distribution.receiver, deps.gate));
  const routers = [
    nodeInfoRoutes(deps.nodeInfo),
    publishRoutes(deps.publish, deps.settings, deps.gate, deps.heavySlots),
    swordRoutes(deps.sword, deps.gate),
    deleteRoutes(deps.remove, deps.settings, deps.nodes, deps.gate),
    sliceRoutes(deps.slice, deps.settings, deps.gate, deps.heavySlots),
    obtainRoutes(deps.obtain, deps.settings, deps.gate, deps.heavySlots),
    harvestRoutes(deps.harvest, deps.publicUrl, deps.settings, deps.gate, deps.heavySlots),
    authRoutes(deps.authPages),
    oaiPmhRoutes(deps.oaiPmh, deps.settings, deps.gate, deps.schemaDir, deps.heavySlots),
    distributeRoutes(deps.distribution, deps.settings, deps.gate),
    monitoringRoutes(deps.monitoring, deps.gate),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
