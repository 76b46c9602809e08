/** Wiring of /auth from the process settings (OIDC_*) and the accounts database. */
import { randomBytes } from 'node:crypto';
import type { Settings } from '../../config/index.js';
import type { AccountRepository } from '../../storage/account-repository.js';
import type { AuthPagesOptions } from './auth.routes.js';
import { OidcSignIn } from './oidc.js';
import { WebAccounts } from './web-accounts.js';

export function authPagesOptions(settings: Settings, accounts: AccountRepository, publicUrl: string, nodeName: string): AuthPagesOptions {
  const { oidcIssuer: issuer, oidcClientId: clientId, oidcClientSecret: clientSecret } = settings;
  const oidc = issuer && clientId && clientSecret ? new OidcSignIn({ issuer, clientId, clientSecret, redirectUri: `${publicUrl}/auth/callback` }) : undefined;
  return {
    oidc,
    accounts: new WebAccounts(accounts),
    sessionSecret: () => accounts.sessionSecretOnce(() => randomBytes(32).toString('hex')),
    secureCookies: publicUrl.startsWith('https:'),
    page: { nodeName, publicUrl },
  };
}
