/**
 * The OAI-PMH verbs of this node (OAI-PMH 2.0 §4 with the spec's extensions, "OAI-PMH Harvest
 * (XML)"): required, optional and exclusive arguments of each, checked before its handler runs.
 * A missing, unknown or repeated verb is badVerb; an illegal, repeated or missing argument, or
 * an exclusive one with others, is badArgument (§3.6).
 */
import { BadArgument, BadVerb } from './oai-errors.js';
import { isAnyUri } from '../../protocol/oai-pmh/identifiers.js';
import { METADATA_PREFIX } from '../../protocol/oai-pmh/formats.js';
import type { OaiBody } from '../../protocol/oai-pmh/response.js';
import type { OaiContext } from './oai-context.js';
import { getRecord } from './get-record.js';
import { list } from './list.js';
import { identify, listMetadataFormats, listSets } from './describe.js';

/** OAI-PMH.xsd setSpecType. */
const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*$/;

/**
 * Arguments whose syntax the protocol fixes (OAI-PMH.xsd types of the request element): a value
 * outside it is badArgument (§3.6), and is never echoed into a response it would make invalid.
 */
const ARGUMENT_SYNTAX: Record<string, { valid: (value: string) => boolean; rule: string }> = {
  identifier: { valid: isAnyUri, rule: 'identifier is not a URI (OAI-PMH identifiers are URIs)' },
  metadataPrefix: { valid: (value) => METADATA_PREFIX.test(value), rule: 'metadataPrefix has characters OAI-PMH does not allow' },
  set: { valid: (value) => SET_SPEC.test(value), rule: 'set is not a setSpec' },
};

export const VERBS = ['Identify', 'ListMetadataFormats', 'ListSets', 'GetRecord', 'ListIdentifiers', 'ListRecords'] as const;
export type Verb = typeof VERBS[number];

/** What a verb's handler gets: its checked arguments and the request's context. */
export type VerbHandler = (args: Record<string, string>, context: OaiContext) => Promise<OaiBody>;

/**
 * `lists`: the verb lists records, pinned to the request's instant (its responseDate trails the
 * pin: harvest-dates.ts). `handler` runs once the arguments have passed the rule's checks.
 */
export interface VerbRule { required: string[]; optional: string[]; exclusive?: string; lists?: true; handler: VerbHandler }

export const VERB_TABLE: Record<Verb, VerbRule> = {
  Identify: { required: [], optional: [], handler: (_args, context) => identify(context) },
  // LR extension: the identifier flags of GetRecord.
  ListMetadataFormats: { required: [], optional: ['identifier', 'by_doc_ID', 'by_resource_ID'], handler: listMetadataFormats },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken', handler: async (args) => listSets(args) },
  // LR extension: by_doc_ID / by_resource_ID; checked in the spec's order (identifier, then metadataPrefix).
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: ['by_doc_ID', 'by_resource_ID'], handler: getRecord },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken', lists: true, handler: (args, context) => list('ListIdentifiers', args, context) },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken', lists: true, handler: (args, context) => list('ListRecords', args, context) },
};

export interface OaiRequest { verb: Verb; args: Record<string, string> }

const isVerb = (value: string): value is Verb => (VERBS as readonly string[]).includes(value);

/** Whether the pairs name a verb that lists records, read from the pairs so that a refused request's answer is dated by the same rule. */
export function namesListVerb(pairs: [string, string][]): boolean {
  return pairs.some(([name, value]) => name === 'verb' && isVerb(value) && VERB_TABLE[value].lists === true);
}

/** Checks the argument pairs of a request (query string or form body) against the table. */
export function parseOaiRequest(pairs: [string, string][]): OaiRequest {
  const verbs = pairs.filter(([name]) => name === 'verb');
  if (verbs.length === 0) throw new BadVerb('the verb argument is missing');
  if (verbs.length > 1) throw new BadVerb('the verb argument is repeated');
  const verb = (verbs[0] as [string, string])[1];
  if (!isVerb(verb)) throw new BadVerb('the value of the verb argument is not a legal OAI-PMH verb');
  const rule = VERB_TABLE[verb];
  const args: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (name === 'verb') continue;
    if (!rule.required.includes(name) && !rule.optional.includes(name) && rule.exclusive !== name) throw new BadArgument(`illegal argument for ${verb}`);
    if (Object.prototype.hasOwnProperty.call(args, name)) throw new BadArgument(`the argument ${name} is repeated`);
    const syntax = ARGUMENT_SYNTAX[name];
    if (syntax && value !== '' && !syntax.valid(value)) throw new BadArgument(syntax.rule);
    args[name] = value;
  }
  if (rule.exclusive !== undefined && args[rule.exclusive] !== undefined) {
    if (Object.keys(args).length > 1) throw new BadArgument(`${rule.exclusive} is an exclusive argument`);
    return { verb, args };
  }
  for (const name of rule.required) if (!args[name]) throw new BadArgument(`the required argument ${name} is missing`);
  return { verb, args };
}
