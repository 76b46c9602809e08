/** Explicit wiring: repositories → services. No module singletons; tests build their own. */
import type { Logger } from 'pino';
import type { Couch } from './storage/couch.js';
import type { DatabaseNames } from './storage/databases.js';
import { NodeRepository } from './storage/node-repository.js';
import { ResourceRepository } from './storage/resource-repository.js';
import { NodeInfoService } from './services/node-info/node-info.service.js';
import type { AppConfig } from './config/index.js';

export interface Deps {
  config: AppConfig;
  logger: Logger;
  nodeInfo: NodeInfoService;
}

export function buildDeps(input: { config: AppConfig; logger: Logger; couch: Couch; names: DatabaseNames; publicUrl: string }): Deps {
  const nodes = new NodeRepository(input.couch, input.names);
  const resources = new ResourceRepository(input.couch, input.names);
  return {
    config: input.config,
    logger: input.logger,
    nodeInfo: new NodeInfoService(nodes, resources, new Date().toISOString()),
  };
}
