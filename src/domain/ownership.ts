/**
 * Who owns a stored document (spec "Authentication", 8 and "Basic Delete": only the owner may
 * delete; "States and transitions": an unsigned original is replaced in total by its submitter).
 *
 * The owner is the node account that published the document, recorded on the stored document in
 * a node-private field (src/domain/node-private-fields.ts says what that means for serving,
 * hashing and peers): `identity.submitter` is text the publisher writes (an NSDL feed names the
 * organisation it publishes for), so it cannot prove ownership. A document that arrived by
 * distribution has no owner here, and only for such documents is the `identity.submitter` of the
 * account compared.
 */
export const OWNER_FIELD = 'node_publisher_account';

export interface Owner { name: string; submitter: string }

export function ownerOf(doc: Record<string, unknown>): string | undefined {
  const owner = doc[OWNER_FIELD];
  return typeof owner === 'string' && owner !== '' ? owner : undefined;
}

/** True when `account` owns `doc`: the recorded publishing account, or, for a document without one, the same identity.submitter. */
export function isOwnedBy(doc: Record<string, unknown>, account: Owner): boolean {
  const owner = ownerOf(doc);
  if (owner !== undefined) return owner === account.name;
  const submitter = (doc.identity as Record<string, unknown> | undefined)?.submitter;
  return typeof submitter === 'string' && submitter === account.submitter;
}
