/**
 * The node's own configuration file (CONFIG): node, community, network, policy, filter,
 * connections and per-service deployment values. Validated with ajv (defaults filled in),
 * so a wrong value stops the node with a message naming the setting.
 */
import fs from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigError } from './settings.js';
import { NULL_STATES_NONE, nodeConfigSchema } from './node-config.schema.js';
import { CONFIG_FORMATS, addConfigFormats } from './config-formats.js';
import { filterPatternProblem } from '../domain/filter-patterns.js';
import { adminEmailOf } from '../domain/admin-email.js';
import type { NodeConfig, ServiceKey } from '../domain/node-configuration.js';

// Re-exported: the rest of the node takes the configuration's types from config/, as before.
export type { DeletedDataPolicy, NodeConfig, NodePolicy, ServiceKey } from '../domain/node-configuration.js';

/** A refused value as the message shows it, when it is short enough for one line; never a URL's credentials. */
function shown(value: unknown): string {
  const text = JSON.stringify(value)?.replace(/(\/\/)[^/@\s"]*@/g, '$1***@');
  return text !== undefined && text.length <= 80 ? `, got ${text}` : '';
}

/**
 * ajv's message, with what it leaves out: the unknown key's name and the keys that are known, the
 * values allowed, the value refused, and what the schema says of the setting (its description).
 */
export function describeSchemaError(error: ErrorObject): string {
  const message = error.message ?? 'invalid';
  const schema = (error.parentSchema ?? {}) as { properties?: Record<string, unknown>; description?: string };
  const about = schema.description ? ` (${schema.description})` : '';
  switch (error.keyword) {
    case 'additionalProperties': {
      const known = Object.keys(schema.properties ?? {});
      return `${message}: ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)} is not a setting here${about || ` (${known.length ? `known: ${known.join(', ')}` : 'it takes none'})`}`;
    }
    case 'enum': return `${message}: ${((error.params as { allowedValues: unknown[] }).allowedValues).map((value) => JSON.stringify(value)).join(', ')}${shown(error.data)}`;
    case 'const': return `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}${shown(error.data)}${about}`;
    case 'format': return `${CONFIG_FORMATS[(error.params as { format: string }).format]?.rule ?? message}${shown(error.data)}`;
    case 'type': case 'minimum': case 'maximum': case 'minLength': return `${message}${shown(error.data)}${about}`;
    default: return message;
  }
}

/**
 * The ajv that checks configuration (CONFIG here, a stored node_policy: stored-policy.ts): defaults
 * filled in; verbose, so an error carries the refused value and its schema, which the message quotes.
 */
export function configAjv(): Ajv {
  const ajv = new Ajv({ useDefaults: true, allErrors: false, strict: true, verbose: true });
  addConfigFormats(ajv);
  return ajv;
}

let compiled: ValidateFunction<NodeConfig> | undefined;

/** The CONFIG schema, compiled once; ajv fills in the defaults as it validates. */
function configValidator(): ValidateFunction<NodeConfig> {
  if (compiled) return compiled;
  // verbose: an error carries the refused value and its schema, which the message quotes.
  compiled = configAjv().compile<NodeConfig>(nodeConfigSchema);
  return compiled;
}

export function validateNodeConfig(input: unknown, source: string): NodeConfig {
  const validate = configValidator();
  const copy: unknown = structuredClone(input ?? {});
  if (!validate(copy)) {
    const first = validate.errors?.[0];
    const where = first ? `${first.instancePath || '/'}` : '/';
    throw new ConfigError(`${source}${where}`, first ? describeSchemaError(first) : 'invalid');
  }
  for (const [key, names] of Object.entries(NULL_STATES_NONE)) {
    const data = copy.services[key as ServiceKey].service_data;
    for (const name of names) if (data[name] === null) delete data[name];
  }
  dropUnappliedLimits(input, copy, source);
  // Every pattern, even of a filter that is off: the filter description is served as it is, and
  // may be switched on in the node database.
  const problem = copy.filter ? filterPatternProblem(copy.filter.filter) : undefined;
  if (problem) {
    throw new ConfigError(`${source}/filter/filter/${problem.index}/${problem.field}`, `must be a regular expression the filter can compile${shown(problem.pattern)}: ${problem.reason}`);
  }
  // Identify's adminEmail is the address in it (domain/admin-email.ts): an identity naming none
  // made every Identify response invalid against OAI-PMH.xsd.
  if (adminEmailOf(copy.node.node_admin_identity) === undefined) {
    throw new ConfigError(`${source}/node/node_admin_identity`, `must name the administrator's e-mail address, as \`admin@example.org\` or \`Jane Admin <admin@example.org>\` (OAI-PMH Identify's adminEmail is taken from it)${shown(copy.node.node_admin_identity)}`);
  }
  return copy;
}

/**
 * Basic Harvest and Slice with `flow_control` false answer each list whole (harvest-settings.ts,
 * slice.service.ts), so their page limits limit nothing: a description stating them told clients
 * of limits the node does not apply (a spec audit's finding; spec "Limits": a description states
 * the limits that apply). The defaults are left out of the description; limits CONFIG states
 * itself are refused. (Obtain without flow control still answers at most its limits.)
 */
function dropUnappliedLimits(input: unknown, copy: NodeConfig, source: string): void {
  for (const key of ['harvest', 'slice'] as const) {
    const data = copy.services[key].service_data as Record<string, unknown>;
    if (data.flow_control !== false) continue;
    const given = (input as { services?: Record<string, { service_data?: Record<string, unknown> } | undefined> } | undefined)?.services?.[key]?.service_data ?? {};
    for (const name of ['doc_limit', 'id_limit']) {
      if (Object.hasOwn(given, name)) throw new ConfigError(`${source}/services/${key}/service_data/${name}`, 'limits nothing with flow_control false: every list is answered whole; leave it out, or set flow_control true to page by it');
      delete data[name];
    }
  }
}

/** The configuration of a node no CONFIG ever configured: every key at its default. */
export function defaultNodeConfig(): NodeConfig {
  return validateNodeConfig({}, 'CONFIG');
}

/** `CONFIG=defaults`: the default configuration replaces the stored one (a file of that name is given as `./defaults`). */
export const CONFIG_DEFAULTS = 'defaults';

/**
 * What CONFIG gave: the configuration it states (`given`, the file's JSON as written; `{}` for
 * CONFIG=defaults) and that configuration completed by this version's defaults (`node`). The node
 * keeps `given` (the node_config document, storage/bootstrap.ts), so a later start without CONFIG
 * applies it again with that version's defaults: a key the operator never set follows the
 * defaults of the version running, as it did when every start applied CONFIG or the defaults.
 */
export interface GivenNodeConfig { node: NodeConfig; given: Record<string, unknown> }

/** Undefined when CONFIG is unset: the node applies the CONFIG an earlier start was given (runtime.ts). */
export function loadNodeConfig(configPath: string | undefined): GivenNodeConfig | undefined {
  if (!configPath) return undefined;
  if (configPath === CONFIG_DEFAULTS) return { node: defaultNodeConfig(), given: {} };
  let raw: string;
  try {
    raw = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    throw new ConfigError('CONFIG', `cannot read ${configPath}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError('CONFIG', `${configPath} is not valid JSON: ${(error as Error).message}`);
  }
  return { node: validateNodeConfig(parsed, `CONFIG ${configPath} `), given: parsed as Record<string, unknown> };
}
