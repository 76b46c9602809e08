/**
 * The node policy as publish and inbound distribution apply it: the node description's
 * `node_policy`, which the node follows live from the node database, where an operator may edit
 * it. Written from CONFIG it is whole and valid; edited by hand it may not be, and it was used
 * as it came: a policy without `accepted_tos` made every publish and inbound batch fail with a
 * TypeError (a bare "internal error"), and a `max_document_size` that was no number compared
 * as NaN and applied no size limit at all (a code review's finding). It is checked here with
 * CONFIG's own schema for `policy`: a member left out takes its default, as in CONFIG; a member
 * of the wrong type stops each publish and inbound batch with HTTP 500 `misconfigured` naming
 * it, as a filter description that does not compile does (domain/filters.ts).
 */
import type { ValidateFunction } from 'ajv';
import { AppError } from '../errors/app-error.js';
import { nodeConfigSchema } from './node-config.schema.js';
import { configAjv, describeSchemaError } from './node-config.js';
import type { NodePolicy } from '../domain/node-configuration.js';

export type PolicyReader = (stored: unknown) => NodePolicy;

/** A reader of stored policies, its schema compiled once (deps.ts builds one for the node). */
export function createPolicyReader(): PolicyReader {
  // The policy section of CONFIG's schema, without the section's own default (ajv's strict mode
  // refuses a default at a schema's root): a node_policy that is no object is refused.
  const policySchema: Record<string, unknown> = { ...nodeConfigSchema.properties.policy };
  delete policySchema.default;
  const validate: ValidateFunction<NodePolicy> = configAjv().compile<NodePolicy>(policySchema);
  // The policy last read and its checked copy: a batch reads the same document as the one before.
  let last: { json: string; policy: NodePolicy } | undefined;
  return (stored) => {
    const json = JSON.stringify(stored ?? {});
    if (last?.json === json) return last.policy;
    const copy: unknown = JSON.parse(json);
    if (!validate(copy)) {
      const first = validate.errors?.[0];
      const where = `node_policy${first?.instancePath ?? ''}`;
      throw new AppError(500, 'misconfigured', `the node policy (node_policy of the node description) cannot be applied: ${where} ${first ? describeSchemaError(first) : 'is invalid'}`, true);
    }
    last = { json, policy: copy };
    return copy;
  };
}
