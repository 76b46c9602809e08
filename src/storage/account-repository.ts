/** Publishing and network-admin accounts, one document each in the accounts database. */
import type { Couch } from './couch.js';
import { inStore, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { createOnce, getOrUndefined, database, type Database, type StoredDoc } from './documents.js';
import { writeOne } from './settled-writes.js';
import { OAuthNonces } from './oauth-nonces.js';
import type { FollowedDocuments } from './followed-documents.js';
import type { PasswordHash } from '../domain/password.js';
import { AppError } from '../errors/app-error.js';

export type AccountRole = 'publisher' | 'network_admin';

/** An OAuth bearer token for publishing (RFC 6750): only a SHA-256 of the token is kept. */
export interface BearerTokenRecord { id: string; hash: string; label: string; created: string }

/**
 * OAuth 1.0 credentials (RFC 5849; src/services/auth/oauth1.ts): the consumer key is the account
 * name, the token names the credential. The secrets are HMAC keys, which a check needs as they
 * are (§3.4.2), so they are kept, like the rest of this database, for the store's admin only.
 */
export interface OAuthCredentialRecord { token: string; token_secret: string; consumer_secret: string; label: string; created: string }

/** How a web account (managed at /auth) proved its e-mail: the provider and its subject (OIDC Core 2). */
export interface WebIdentity { issuer: string; subject: string; verified: string }

export interface Account {
  name: string;
  roles: AccountRole[];
  /** The identity written to identity.submitter when this account publishes an anonymous document. */
  submitter: string;
  disabled: boolean;
  /** Absent when a web account has not set one yet or revoked it: Basic authentication then fails. */
  password?: PasswordHash;
  web?: WebIdentity;
  tokens?: BearerTokenRecord[];
  oauth?: OAuthCredentialRecord[];
  created: string;
  updated: string;
  rev?: string;
}

interface AccountDoc extends Omit<Account, 'rev'> { _id: string; _rev?: string; doc_type: 'account' }

export const ACCOUNT_NAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const idOf = (name: string): string => `account:${name}`;
/** An ordinary document, created once (documents.ts createOnce: `_local/` ones diverge on a cluster); LEGACY_SESSION_SECRET_ID is where earlier versions kept it. */
const SESSION_SECRET_ID = 'auth_session_secret';
const LEGACY_SESSION_SECRET_ID = '_local/auth_session_secret';

function fromDoc(doc: AccountDoc): Account {
  const { _id, _rev, doc_type: docType, ...account } = doc;
  void _id; void docType;
  return { ...account, ...(_rev ? { rev: _rev } : {}) };
}

export class AccountRepository {
  private readonly db: Database;
  private readonly nonces: OAuthNonces;

  /** `followed`: the accounts database's documents kept by its _changes feed (the running node); unset: read each time. */
  constructor(couch: Couch, names: DatabaseNames, private readonly followed?: FollowedDocuments) {
    this.db = database(couch, names.accounts);
    this.nonces = new OAuthNonces(couch, names);
  }

  async find(name: string): Promise<Account | undefined> {
    if (!ACCOUNT_NAME.test(name)) return undefined;
    const doc = (this.followed ? await this.followed.get(idOf(name)) : await getOrUndefined(this.db, idOf(name))) as (AccountDoc & Record<string, unknown>) | undefined;
    return doc && doc.doc_type === 'account' ? fromDoc(doc) : undefined;
  }

  async list(): Promise<Account[]> {
    const result = await inStore('list accounts', () => this.db.list({ include_docs: true, startkey: 'account:', endkey: 'account:\ufff0' }));
    return result.rows.map((row) => fromDoc(row.doc as AccountDoc & StoredDoc));
  }

  // Both writes are settled (settled-writes.ts): on a cluster, a revoked token or password is
  // not brought back by a concurrent update that CouchDB only accepted.
  async create(account: Omit<Account, 'rev'>): Promise<void> {
    try {
      const written = await writeOne(this.db, { ...account, _id: idOf(account.name), doc_type: 'account' }, 'create account');
      if (!written.ok) throw new AppError(409, 'conflict', `account ${account.name} exists already`);
    } finally {
      this.followed?.changed(idOf(account.name));
    }
  }

  async update(account: Account): Promise<void> {
    const { rev, ...fields } = account;
    try {
      const written = await writeOne(this.db, { ...fields, _id: idOf(account.name), ...(rev ? { _rev: rev } : {}), doc_type: 'account' }, 'update account');
      if (!written.ok) throw mapCouchError({ statusCode: 409 }, 'update account');
    } finally {
      this.followed?.changed(idOf(account.name));
    }
  }

  /**
   * Deletes the account document (settled like the other writes: on a cluster a removal is not
   * undone by an update CouchDB only accepted). Every process's copy goes with the _changes feed
   * (followed-documents.ts), so its password, tokens and /auth session are refused at once. Its
   * OAuth nonce records go too: an account added later under the name starts afresh.
   */
  async remove(account: Account): Promise<void> {
    try {
      const written = await writeOne(this.db, { _id: idOf(account.name), ...(account.rev ? { _rev: account.rev } : {}), _deleted: true }, 'remove account');
      if (!written.ok) throw mapCouchError({ statusCode: 409 }, 'remove account');
    } finally {
      this.followed?.changed(idOf(account.name));
    }
    await this.nonces.forget(account.name);
  }

  /** HMAC key of /auth session cookies, created once and shared by every node process. */
  async sessionSecretOnce(create: () => string): Promise<string> {
    const doc = await createOnce(this.db, SESSION_SECRET_ID, async () => ({ secret: (await getOrUndefined(this.db, LEGACY_SESSION_SECRET_ID))?.secret ?? create() }));
    return String(doc.secret);
  }
}
