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
 *
 * The field holds a keyed pseudonym of the account's name, not the name (OwnerPseudonyms): web
 * accounts are named by their e-mail address (services/auth/web-accounts.ts), and CouchDB
 * replication copies whole documents, node-private fields included, to every peer. Documents
 * stored by earlier versions hold the plain name; they stay owned by it (legacy, below).
 */
import { createHmac, hkdfSync } from 'node:crypto';

export const OWNER_FIELD = 'node_publisher_account';

export interface Owner { name: string; submitter: string }

/**
 * The pseudonym's prefix. It names the algorithm, and its colon is a character no account name
 * holds (storage/account-repository.ts, ACCOUNT_NAME: letters, digits and . _ @ + -), so a
 * pseudonym is never taken for a plain name recorded by an earlier version, nor the reverse.
 */
export const PSEUDONYM_PREFIX = 'hmac-sha256:';

/** HKDF's info label: a key of its own, unrelated to the resumption tokens' (domain/resumption-token.ts). */
const KEY_LABEL = 'lr-node owner pseudonym v1';

/**
 * The owner recorded for an account: `hmac-sha256:` and the base64url HMAC-SHA256 of its name,
 * keyed by HKDF-SHA256 of the node's token secret (storage/bootstrap.ts, kept in the node
 * database and shared by every node process, so each records and recognises the same pseudonym;
 * no new secret, no migration). Only this node can tell whose a pseudonym is; a peer that
 * receives one learns nothing of the address. Rotating the token secret would orphan every
 * recorded owner (nothing rotates it today): only documents without an owner would stay
 * deletable, by identity.submitter.
 */
export class OwnerPseudonyms {
  private readonly key: Buffer;

  constructor(tokenSecret: string) {
    if (tokenSecret === '') throw new Error('the owner pseudonyms need the node\'s token secret');
    this.key = Buffer.from(hkdfSync('sha256', tokenSecret, '', KEY_LABEL, 32));
  }

  /** What publish records as the owner of a document `name` publishes. */
  of(name: string): string {
    return PSEUDONYM_PREFIX + createHmac('sha256', this.key).update(name, 'utf8').digest('base64url');
  }

  /**
   * Whether two recorded owners name the same account: equal, or one the plain name (written by
   * an earlier version) whose pseudonym is the other.
   */
  same(a: string, b: string): boolean {
    return a === b || (isPlain(a) && this.of(a) === b) || (isPlain(b) && this.of(b) === a);
  }

  /** True when `account` owns `doc`: the recorded publishing account (its pseudonym, or its name: legacy), or, for a document without one, the same identity.submitter. */
  isOwnedBy(doc: Record<string, unknown>, account: Owner): boolean {
    const owner = ownerOf(doc);
    if (owner !== undefined) return owner === account.name || owner === this.of(account.name);
    const submitter = (doc.identity as Record<string, unknown> | undefined)?.submitter;
    return typeof submitter === 'string' && submitter === account.submitter;
  }
}

const isPlain = (owner: string): boolean => !owner.startsWith(PSEUDONYM_PREFIX);

export function ownerOf(doc: Record<string, unknown>): string | undefined {
  const owner = doc[OWNER_FIELD];
  return typeof owner === 'string' && owner !== '' ? owner : undefined;
}
