/**
 * Basic Harvest arguments (spec "Basic Harvest (JSON)", path table) from a GET query or a POST
 * JSON body, checked per verb. Unknown or repeated arguments are a `badArgument`, as in
 * OAI-PMH 2.0 §3.6 (and an ID given to listmetadataformats "SHOULD produce an error").
 * Booleans are `T`/`F` (spec "Endpoints"); `true`/`false` and JSON booleans are accepted too.
 */
import { specBooleanArgument } from '../../domain/spec-boolean.js';
import { jsonpNote } from '../jsonp.js';

export const HARVEST_VERBS = ['getrecord', 'listrecords', 'listidentifiers', 'identify', 'listmetadataformats', 'listsets'] as const;
export type HarvestVerb = typeof HARVEST_VERBS[number];

/** The verbs that list records: pinned to the request's instant, their answers dated by the pin (harvest-dates.ts), their range echoed. */
export function isListVerb(verb: HarvestVerb): verb is 'listrecords' | 'listidentifiers' {
  return verb === 'listrecords' || verb === 'listidentifiers';
}
export type HarvestCode = 'badArgument' | 'badResumptionToken' | 'idDoesNotExist' | 'noRecordsMatch' | 'noSetHierarchy';

/** A harvest protocol error: `{"OK": false, "error": code}` (spec "Errors"). */
export class HarvestError extends Error {
  constructor(readonly code: HarvestCode, message: string) {
    super(message);
    this.name = 'HarvestError';
  }
}

const LIST_ARGS = ['from', 'until', 'resumption_token'];
const ALLOWED: Record<HarvestVerb, string[]> = {
  // request_id too, as obtain's GET takes it and the original node's getrecord did (harvest.py).
  getrecord: ['request_ID', 'request_id', 'by_doc_ID', 'by_resource_ID'],
  listrecords: LIST_ARGS,
  listidentifiers: LIST_ARGS,
  identify: [],
  listmetadataformats: [],
  listsets: [],
};

export type HarvestArgs = Record<string, string | boolean>;

/** The arguments of one verb; throws a badArgument HarvestError for anything else. */
export function readArgs(verb: HarvestVerb, raw: unknown): HarvestArgs {
  // listsets takes none and answers "always OK false, error noSetHierarchy" (spec "Basic Harvest
  // (JSON)"): whatever it is sent, the answer is that this node has no sets, not badArgument.
  if (raw === undefined || raw === null || verb === 'listsets') return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new HarvestError('badArgument', 'the request body must be a JSON object of arguments');
  const args: HarvestArgs = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!ALLOWED[verb].includes(name)) throw new HarvestError('badArgument', `illegal argument ${name.slice(0, 40)} for ${verb}${jsonpNote([name])}`);
    if (Array.isArray(value)) throw new HarvestError('badArgument', `${name} is given more than once`);
    if (typeof value === 'boolean' && name.startsWith('by_')) args[name] = value;
    else if (typeof value === 'string') args[name] = value;
    // A JSON null (or number, object) is a value of the wrong type, not an absent argument: read
    // as absent, {"from": null} listed every record (issue 14 defect 4; OAI-PMH 2.0 §3.6 badArgument).
    else throw new HarvestError('badArgument', `${name} must be a string${name.startsWith('by_') ? ' (T or F) or a JSON boolean' : ''}`);
  }
  return args;
}

export function flagArg(args: HarvestArgs, name: string): boolean | undefined {
  return specBooleanArgument(args[name], () => new HarvestError('badArgument', `${name} must be T or F`));
}

/** A date argument as given: an empty `from=` is no date (harvest-dates.ts refuses it), not an absent one. */
export function dateArg(args: HarvestArgs, name: 'from' | 'until'): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The resumption_token as given. An empty one is a bad token, not an absent one (the rule of
 * spec-boolean.ts for every empty argument): read as absent, `?resumption_token=` restarted the
 * list at its first page, so a client that lost its token by mistake harvested again silently.
 * OAI-PMH answers `resumptionToken=` badResumptionToken too.
 */
export function tokenArg(args: HarvestArgs): string | undefined {
  const value = args.resumption_token;
  if (value === '') throw new HarvestError('badResumptionToken', 'resumption_token is empty: leave it out to start a list');
  return typeof value === 'string' ? value : undefined;
}

export function stringArg(args: HarvestArgs, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
