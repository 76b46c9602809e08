/**
 * Resumption tokens of listrecords/listidentifiers (JSON) and ListRecords/ListIdentifiers
 * (OAI-PMH 2.0 §3.5): stateless keyset tokens from the node's TokenCodec. A token carries the
 * request's selection (so it can be used alone, as OAI-PMH requires), the last key returned and
 * the count returned before the next page; it is bound to its verb and lives 48 hours.
 */
import { requestFingerprint, type TokenCodec } from '../../domain/resumption-token.js';
import type { ViewKey } from '../../storage/harvest-repository.js';
import type { Selection } from './harvest-selection.js';

export interface ListState {
  selection: Selection;
  /** The from/until/metadataPrefix arguments as the client gave them. */
  args: { from?: string | undefined; until?: string | undefined; metadataPrefix?: string | undefined };
}

export interface Continuation { state: ListState; after: ViewKey; count: number }

interface Extra { s: [string | null, string | null, string]; a: [string | null, string | null, string | null] }

export function encodeContinuation(tokens: TokenCodec, service: string, state: ListState, after: ViewKey, count: number): string {
  const { selection: sel, args } = state;
  const x: Extra = { s: [sel.schema ?? null, sel.from ?? null, sel.until], a: [args.from ?? null, args.until ?? null, args.metadataPrefix ?? null] };
  return tokens.encode({ s: service, q: requestFingerprint(service), k: after, n: count, x });
}

export function decodeContinuation(tokens: TokenCodec, service: string, token: string): Continuation | { error: string } {
  const check = tokens.decode(token, service, requestFingerprint(service));
  if (!check.ok) return { error: check.reason };
  const { k, n, x } = check.payload;
  const extra = x as Extra | undefined;
  if (!Array.isArray(k) || typeof n !== 'number' || !extra || !Array.isArray(extra.s) || !Array.isArray(extra.a)) return { error: 'the resumption token is damaged' };
  const [schema, from, until] = extra.s;
  const [argFrom, argUntil, prefix] = extra.a;
  return {
    after: k as ViewKey,
    count: n,
    state: {
      selection: { schema: schema ?? undefined, from: from ?? undefined, until },
      args: { from: argFrom ?? undefined, until: argUntil ?? undefined, metadataPrefix: prefix ?? undefined },
    },
  };
}
