/** Publishing and network-admin accounts, one document each in the accounts database. */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import { inStore, isConflict, mapCouchError } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined } from './documents.js';
import type { PasswordHash } from '../domain/password.js';
import { AppError } from '../errors/app-error.js';

export type AccountRole = 'publisher' | 'network_admin';

export interface Account {
  name: string;
  roles: AccountRole[];
  /** The identity written to identity.submitter when this account publishes an anonymous document. */
  submitter: string;
  disabled: boolean;
  password: PasswordHash;
  created: string;
  updated: string;
  rev?: string;
}

interface AccountDoc extends Omit<Account, 'rev'> { _id: string; _rev?: string; doc_type: 'account' }

export const ACCOUNT_NAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const idOf = (name: string): string => `account:${name}`;

function fromDoc(doc: AccountDoc): Account {
  const { _id, _rev, doc_type: docType, ...account } = doc;
  void _id; void docType;
  return { ...account, ...(_rev ? { rev: _rev } : {}) };
}

export class AccountRepository {
  private readonly db: DocumentScope<unknown>;

  constructor(couch: Couch, names: DatabaseNames) {
    this.db = couch.use(names.accounts);
  }

  async find(name: string): Promise<Account | undefined> {
    if (!ACCOUNT_NAME.test(name)) return undefined;
    const doc = await getOrUndefined<AccountDoc & Record<string, unknown>>(this.db, idOf(name));
    return doc && doc.doc_type === 'account' ? fromDoc(doc) : undefined;
  }

  async list(): Promise<Account[]> {
    const result = await inStore('list accounts', () => this.db.list({ include_docs: true, startkey: 'account:', endkey: 'account:\ufff0' }));
    return result.rows.map((row) => fromDoc(row.doc as unknown as AccountDoc));
  }

  async create(account: Omit<Account, 'rev'>): Promise<void> {
    try {
      await this.db.insert({ ...account, _id: idOf(account.name), doc_type: 'account' } as never);
    } catch (error) {
      if (isConflict(error)) throw new AppError(409, 'conflict', `account ${account.name} exists already`);
      throw mapCouchError(error, 'create account');
    }
  }

  async update(account: Account): Promise<void> {
    const { rev, ...fields } = account;
    await inStore('update account', () => this.db.insert({ ...fields, _id: idOf(account.name), _rev: rev, doc_type: 'account' } as never));
  }
}
