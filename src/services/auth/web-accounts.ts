/**
 * The account use cases of /auth (spec "Authentication", 2-3): an account per verified e-mail,
 * whose name and identity.submitter are that address; a publishing password (scrypt, never
 * shown again); bearer tokens. Every change writes the account document, so its revision changes
 * and the Authenticator's cache of successful checks no longer applies (revocation is immediate).
 */
import { hashPassword } from '../../domain/password.js';
import { passwordWeakness } from '../../domain/password-strength.js';
import { ACCOUNT_NAME, type Account, type AccountRepository } from '../../storage/account-repository.js';
import { AppError } from '../../errors/app-error.js';
import type { ProvenIdentity } from './oidc.js';
import { newBearerToken } from './bearer-token.js';
import { createAccount } from './accounts.service.js';

/** A refusal the page shows to the user as it is (HTTP status and message). */
export class Refusal extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

const MAX_TOKENS = 10;
const MAX_LABEL = 60;

export class WebAccounts {
  constructor(private readonly accounts: AccountRepository, private readonly clock: () => Date = () => new Date()) {}

  /** After sign-in: the account of a verified e-mail, created at first sign-in with the publisher role. */
  async signIn(identity: ProvenIdentity): Promise<Account> {
    if (!identity.email) throw new Refusal(403, 'Your identity provider did not tell us an e-mail address, so no account can be made for you.');
    if (!identity.emailVerified) throw new Refusal(403, `Your identity provider has not verified ${identity.email}. Verify the address there first, then sign in again.`);
    // Addresses are compared case-insensitively in practice; one account per address, whatever its case.
    const name = identity.email.toLowerCase();
    if (!ACCOUNT_NAME.test(name)) throw new Refusal(403, `${identity.email} cannot be an account name on this node (at most 64 letters, digits and . _ @ + -).`);
    const existing = await this.accounts.find(name);
    if (existing) {
      // Accounts made by the operator (npm run account) are not handed to whoever controls the address.
      if (!existing.web) throw new Refusal(403, `The account ${name} was created by the operator of this node and cannot be managed here.`);
      return existing;
    }
    const now = this.clock();
    try {
      await createAccount(this.accounts, { name, roles: ['publisher'], web: { issuer: identity.issuer, subject: identity.subject, verified: now.toISOString() } }, now);
    } catch (error) {
      if (!(error instanceof AppError && error.status === 409)) throw error;
    }
    return this.load(name);
  }

  /** The signed-in account, or a refusal when it vanished or is no longer a web account. */
  async load(name: string): Promise<Account> {
    const account = await this.accounts.find(name);
    if (!account?.web) throw new Refusal(403, 'Your account no longer exists on this node. Sign in again.');
    return account;
  }

  async setPassword(name: string, password: string, confirmation: string): Promise<Account> {
    const account = await this.changeable(name);
    if (password !== confirmation) throw new Refusal(400, 'The two passwords differ.');
    const weakness = passwordWeakness(password, name);
    if (weakness) throw new Refusal(400, `Password not set: ${weakness}.`);
    return this.save({ ...account, password: await hashPassword(password) });
  }

  async revokePassword(name: string): Promise<Account> {
    const { password, ...account } = await this.changeable(name);
    void password;
    return this.save(account);
  }

  async issueToken(name: string, label: string): Promise<{ account: Account; token: string }> {
    const account = await this.changeable(name);
    const tokens = account.tokens ?? [];
    if (tokens.length >= MAX_TOKENS) throw new Refusal(400, `An account may hold at most ${MAX_TOKENS} tokens: revoke one first.`);
    const clean = label.trim().slice(0, MAX_LABEL) || 'publishing token';
    const { token, record } = newBearerToken(name, clean, this.clock().toISOString());
    return { account: await this.save({ ...account, tokens: [...tokens, record] }), token };
  }

  async revokeToken(name: string, id: string): Promise<Account> {
    const account = await this.changeable(name);
    const tokens = account.tokens ?? [];
    if (!tokens.some((token) => token.id === id)) throw new Refusal(400, 'No such token (revoked already?).');
    return this.save({ ...account, tokens: tokens.filter((token) => token.id !== id) });
  }

  private async changeable(name: string): Promise<Account> {
    const account = await this.load(name);
    if (account.disabled) throw new Refusal(403, 'The operator of this node has disabled your account; it cannot be changed.');
    return account;
  }

  private async save(account: Account): Promise<Account> {
    try {
      await this.accounts.update({ ...account, updated: this.clock().toISOString() });
    } catch (error) {
      if (error instanceof AppError && error.status === 409) throw new Refusal(409, 'Your account was changed meanwhile (another tab?). Nothing was changed; try again.');
      throw error;
    }
    return this.load(account.name);
  }
}
