/**
 * Access, decided in one place (issue 12, part 3). Each route declares what it needs with
 * `gate.can(ability)`; the gate identifies the caller from the `Authorization` header (an
 * Identify function: Basic credentials or a bearer token, src/services/auth/authenticator.ts) and
 * puts the account in `ctx.state.principal`, so use cases receive a principal, never a header.
 *
 * Missing or wrong credentials: 401 with WWW-Authenticate (RFC 9110 §15.5.2, added by the error
 * exit). Valid credentials of an account without the role: 403 naming the role that is missing
 * (RFC 9110 §15.5.4): other credentials of the same account would not help, so it is not asked
 * to send them again.
 */
import type { Middleware } from 'koa';
import type { Account, AccountRole } from '../storage/account-repository.js';
import { AppError, missingRole } from '../errors/app-error.js';
import type { NodeContext, NodeState } from './context.js';
import type { SignedRequest } from '../domain/oauth1-signature.js';
import type { CredentialSchemes } from '../domain/service-descriptions.js';

/** What a route may need, and the account role that grants it (spec "Authentication"). */
const ROLE_OF = {
  /** Publish and delete documents. */
  publish: 'publisher',
  /**
   * Read a service whose description restricts it to the node's accounts (service_auth basicauth):
   * any account may, as any may publish. Its own name, so a route says what it guards.
   */
  read: 'publisher',
  /** Trigger distribution and take part in it (/distribute, /incoming): a network operation. */
  distribute: 'network_admin',
  /** Read the node's metrics and dashboard. */
  administer: 'network_admin',
} as const satisfies Record<string, AccountRole>;

export type Ability = keyof typeof ROLE_OF;

/** `client`: the caller's address, for throttling failed sign-ins; `request`: what an OAuth 1.0 signature covers. */
export type Identify = (authorization: string | undefined, client?: string, request?: SignedRequest) => Promise<Account | undefined>;

export interface CanOptions {
  /**
   * Whether this request needs credentials (true: of any scheme; the schemes its service
   * description lists; false: none), e.g. from service_auth.service_authz; default: always.
   */
  when?: (ctx: NodeContext) => Promise<boolean | CredentialSchemes>;
  /** What the 401 says needs the credentials (default: the ability's name; /delete is `delete`, under ability publish). */
  action?: string;
}

const OAUTH_HEADER = /^OAuth\s/i;

/** A 401 for credentials of a scheme the service's description does not list. */
function refuseUnlisted(authorization: string | undefined, schemes: CredentialSchemes | undefined): void {
  if (!schemes || !authorization) return;
  const oauth = OAUTH_HEADER.test(authorization);
  if (oauth && !schemes.oauth) throw new AppError(401, 'unauthorized', 'OAuth: this service does not take OAuth signatures (its service_auth.service_authz does not list oauth)');
  if (!oauth && !schemes.basic) throw new AppError(401, 'unauthorized', 'this service takes OAuth 1.0 signatures only (its service_auth.service_authz lists oauth, not basicauth)');
}

/** The 403 of an authenticated account without the role a request needs: it names the role. */
export class Gate {
  /** `publicUrl`: PUBLIC_URL, the URL clients sign OAuth requests for (a path prefix of a reverse proxy included). */
  constructor(private readonly identify: Identify, private readonly publicUrl: string) {}

  /** The account the header proves, or a 401. */
  async identified(authorization: string | undefined, ability?: Ability, client?: string, request?: SignedRequest, schemes?: CredentialSchemes, action: string | undefined = ability): Promise<Account> {
    refuseUnlisted(authorization, schemes);
    const account = authorization ? await this.identify(authorization, client, request) : undefined;
    if (!account) {
      const need = ability ? `${action} needs the credentials of an account of this node holding the role ${ROLE_OF[ability]}` : 'this needs the credentials of an account of this node';
      throw new AppError(401, 'unauthorized', `${need} (HTTP Basic, a bearer token from /auth, or an OAuth 1.0 signature)`);
    }
    return account;
  }

  /** The account the header proves, when it holds the role `ability` needs; else a 401 or a 403. */
  async admit(authorization: string | undefined, ability: Ability, client?: string, request?: SignedRequest, schemes?: CredentialSchemes, action?: string): Promise<Account> {
    const account = await this.identified(authorization, ability, client, request, schemes, action);
    const role = ROLE_OF[ability];
    if (!account.roles.includes(role)) throw missingRole(account, role);
    return account;
  }

  /** Route middleware: `ctx.state.principal` is the admitted account (unset when `when` says no credentials are needed). */
  can(ability: Ability, options: CanOptions = {}): Middleware<NodeState> {
    return async (ctx, next) => {
      const needed = options.when ? await options.when(ctx) : true;
      if (needed !== false) ctx.state.principal = await this.admit(ctx.get('authorization'), ability, ctx.ip, this.signedRequest(ctx), needed === true ? undefined : needed, options.action);
      await next();
    };
  }

  /**
   * The request as an OAuth 1.0 signature may cover it: signed for the advertised URL, or for the
   * one the client reached (its Host; X-Forwarded-* only behind TRUST_PROXY, koa's `proxy`).
   * Undefined for any other credentials, which need none of it.
   */
  signedRequest(ctx: NodeContext): SignedRequest | undefined {
    if (!OAUTH_HEADER.test(ctx.get('authorization'))) return undefined;
    const path = ctx.originalUrl;
    return {
      method: ctx.method,
      // Not ctx.origin: koa 3 gives the Origin header there.
      urls: [...new Set([`${this.publicUrl}${path}`, `${ctx.protocol}://${ctx.host}${path}`])],
      expectBody: (check) => { ctx.state.bodyCheck = check; },
    };
  }
}
