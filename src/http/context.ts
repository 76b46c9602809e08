import type { ParameterizedContext, DefaultState } from 'koa';
import type { Logger } from 'pino';
import type { Account } from '../storage/account-repository.js';

export interface NodeState extends DefaultState {
  requestId: string;
  log: Logger;
  /** The account the gate admitted for this request (src/http/gate.ts); unset when the route needs none. */
  principal?: Account;
  /** Set by an OAuth signature that covers the body (oauth_body_hash): the body readers refuse a body it does not accept (signed-body.ts). */
  bodyCheck?: (body: Uint8Array) => boolean;
}

export type NodeContext = ParameterizedContext<NodeState>;
