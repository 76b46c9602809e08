import type { ParameterizedContext, DefaultState } from 'koa';
import type { Logger } from 'pino';

export interface NodeState extends DefaultState {
  requestId: string;
  log: Logger;
}

export type NodeContext = ParameterizedContext<NodeState>;
