/** GET /slice (spec "Slice (optional)"): settings and arguments, then the use case. */
import { sendJsonStream } from '../../http/json-stream.js';
import Router from '@koa/router';
import type { NodeState } from '../../http/context.js';
import type { Gate } from '../../http/gate.js';
import type { RequestSlots } from '../../http/request-slots.js';
import { ServiceSettings, numberSetting, credentialsRequired } from '../service-settings.js';
import { parseSliceArgs } from './slice-args.js';
import { SliceStream, type SliceLimits, type SliceService } from './slice.service.js';

/** The schema's defaults, for a service description edited in CouchDB without them. */
const DEFAULT_DOC_LIMIT = 100;
const DEFAULT_ID_LIMIT = 1000;

const positive = (value: number | undefined, fallback: number): number => (value !== undefined && value >= 1 ? Math.floor(value) : fallback);

/** `slots`: each page is read and built in one of the heavy requests' slots (http/request-slots.ts); a streamed slice is sent outside it. */
export function sliceRoutes(service: SliceService, settings: ServiceSettings, gate: Gate, slots: RequestSlots): Router<NodeState> {
  const router = new Router<NodeState>();
  // A slice description that asks for basicauth restricts reading to the node's publishing accounts.
  router.get('/slice', gate.can('read', { when: credentialsRequired(settings, 'slice') }), async (ctx) => {
    // Read at each call: limits changed in the service description apply without a restart.
    const description = await settings.of('slice');
    const args = parseSliceArgs(ctx.query);
    const data = description.service_data;
    const limits: SliceLimits = {
      docLimit: positive(numberSetting(data, 'doc_limit'), DEFAULT_DOC_LIMIT),
      idLimit: positive(numberSetting(data, 'id_limit'), DEFAULT_ID_LIMIT),
      // Without flow control the whole slice is answered, streamed, and never carries a token.
      flowControl: data?.flow_control !== false,
    };
    const answer = await slots.run(ctx, () => service.slice(args, limits));
    if (answer instanceof SliceStream) {
      sendJsonStream(ctx, answer.chunks);
    } else {
      ctx.body = answer;
    }
  });
  return router;
}
