/**
 * /auth (spec "Node-level endpoints" and "Authentication", 3): the web page where a user proves
 * an e-mail address with the configured OpenID Connect provider, then sets or revokes a Basic
 * publishing password and issues or revokes bearer tokens. Server-rendered HTML, no script.
 * Every POST needs the session cookie and the session's CSRF token from a hidden form field.
 */
import Router from '@koa/router';
import type { NodeContext, NodeState } from '../../http/context.js';
import { sendHtmlError } from '../../http/html-error.js';
import { accountPage, notConfiguredPage, problemPage, signedOutPage, type Message, type PageContext } from '../../protocol/html/auth-pages.js';
import { PAGE_CSP } from '../../protocol/html/layout.js';
import type { Account } from '../../storage/account-repository.js';
import { readForm } from './form-body.http.js';
import { SignInFailed, type OidcSignIn } from './oidc.js';
import { CookieSigner } from './session-cookies.http.js';
import { LOGIN_COOKIE, LOGIN_SECONDS, SESSION_COOKIE, SESSION_SECONDS, csrfMatches, nowSeconds, randomToken, type LoginState, type Session } from './session.js';
import { Refusal, type WebAccounts } from './web-accounts.js';

export interface AuthPagesOptions {
  /** Undefined when OIDC_* is not configured: /auth then says so. */
  oidc: OidcSignIn | undefined;
  accounts: WebAccounts;
  /** The HMAC key of the cookies, kept in CouchDB (shared by every node process). */
  sessionSecret: () => Promise<string>;
  secureCookies: boolean;
  page: PageContext;
}

function send(ctx: NodeContext, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

export function authRoutes(options: AuthPagesOptions): Router<NodeState> {
  const router = new Router<NodeState>({ prefix: '/auth' });
  let signer: Promise<CookieSigner> | undefined;
  const cookies = (): Promise<CookieSigner> => {
    signer ??= options.sessionSecret().then((secret) => new CookieSigner(secret, options.secureCookies)).catch((error: unknown) => {
      signer = undefined;
      throw error;
    });
    return signer;
  };

  /** Security headers on every answer, and every failure rendered as a page (never the JSON error exit). */
  router.use(async (ctx, next) => {
    ctx.set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' });
    try {
      await next();
    } catch (error) {
      if (error instanceof Refusal) return send(ctx, error.status, problemPage(options.page, 'Request refused', error.message));
      if (error instanceof SignInFailed) return send(ctx, 400, problemPage(options.page, 'Sign-in failed', `The sign-in could not be completed (${error.message}). Try again.`));
      sendHtmlError(ctx, error, (title, text) => problemPage(options.page, title, text));
    }
  });

  const provider = (ctx: NodeContext): OidcSignIn | undefined => {
    if (!options.oidc) send(ctx, 503, notConfiguredPage(options.page));
    return options.oidc;
  };

  /** A network failure talking to the provider is not the user's fault: say so, log the cause. */
  async function atProvider<T>(ctx: NodeContext, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof SignInFailed) throw error;
      ctx.state.log.warn({ err: error }, 'OpenID Connect provider failed');
      throw new Refusal(502, 'The identity provider could not be reached. Try again later.');
    }
  }

  router.get('/', async (ctx) => {
    const oidc = provider(ctx);
    if (!oidc) return;
    const signed = await cookies();
    const session = signed.read<Session>(ctx, SESSION_COOKIE);
    if (!session) return send(ctx, 200, signedOutPage(options.page, oidc.issuer));
    try {
      send(ctx, 200, accountPage(options.page, await options.accounts.load(session.name), session.csrf));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      signed.clear(ctx, SESSION_COOKIE);
      send(ctx, 200, signedOutPage(options.page, oidc.issuer, { kind: 'error', text: error.message }));
    }
  });

  router.get('/login', async (ctx) => {
    const oidc = provider(ctx);
    if (!oidc) return;
    const { url, login } = await atProvider(ctx, () => oidc.start(nowSeconds() + LOGIN_SECONDS));
    (await cookies()).write(ctx, LOGIN_COOKIE, login);
    ctx.redirect(url.href);
  });

  router.get('/callback', async (ctx) => {
    const oidc = provider(ctx);
    if (!oidc) return;
    const signed = await cookies();
    const login = signed.read<LoginState>(ctx, LOGIN_COOKIE);
    signed.clear(ctx, LOGIN_COOKIE); // one use only: a replayed callback finds no state
    if (!login) throw new Refusal(400, 'This sign-in was not started in this browser, or it took longer than 10 minutes. Sign in again.');
    const identity = await atProvider(ctx, () => oidc.finish(ctx.querystring, login));
    const account = await options.accounts.signIn(identity);
    // A fresh session and CSRF token at every sign-in (no session fixation).
    const session: Session = { name: account.name, csrf: randomToken(), exp: nowSeconds() + SESSION_SECONDS };
    signed.write(ctx, SESSION_COOKIE, session);
    ctx.redirect('/auth');
  });

  /** POST handlers: session and CSRF first; a refused change re-renders the account page with the reason. */
  const post = (path: string, action: (session: Session, form: URLSearchParams) => Promise<{ account: Account; notice: Message; token?: string }>): void => {
    router.post(path, async (ctx) => {
      if (!provider(ctx)) return;
      const signed = await cookies();
      const session = signed.read<Session>(ctx, SESSION_COOKIE);
      if (!session) throw new Refusal(403, 'You are not signed in, or your session has expired. Sign in again.');
      const form = await readForm(ctx);
      if (!csrfMatches(session, form.get('csrf'))) throw new Refusal(403, 'This form was not sent from your publishing account page (CSRF check failed). Reload the page and try again.');
      try {
        const { account, notice, token } = await action(session, form);
        send(ctx, 200, accountPage(options.page, account, session.csrf, notice, token));
      } catch (error) {
        if (!(error instanceof Refusal) || error.status >= 403) throw error;
        send(ctx, error.status, accountPage(options.page, await options.accounts.load(session.name), session.csrf, { kind: 'error', text: error.message }));
      }
    });
  };

  post('/password', async ({ name }, form) => ({
    account: await options.accounts.setPassword(name, form.get('password') ?? '', form.get('confirmation') ?? ''),
    notice: { kind: 'notice', text: 'Your publishing password is set. It is not shown again.' },
  }));
  post('/password/revoke', async ({ name }) => ({
    account: await options.accounts.revokePassword(name),
    notice: { kind: 'notice', text: 'Your publishing password is revoked: Basic publishing with it is refused from now on.' },
  }));
  post('/tokens', async ({ name }, form) => {
    const { account, token } = await options.accounts.issueToken(name, form.get('label') ?? '');
    return { account, token, notice: { kind: 'notice', text: 'A bearer token was issued.' } };
  });
  post('/tokens/revoke', async ({ name }, form) => ({
    account: await options.accounts.revokeToken(name, form.get('id') ?? ''),
    notice: { kind: 'notice', text: 'The token is revoked.' },
  }));

  router.post('/logout', async (ctx) => {
    const signed = await cookies();
    const session = signed.read<Session>(ctx, SESSION_COOKIE);
    const form = await readForm(ctx);
    if (session && !csrfMatches(session, form.get('csrf'))) throw new Refusal(403, 'This form was not sent from your publishing account page (CSRF check failed).');
    signed.clear(ctx, SESSION_COOKIE);
    ctx.status = 303;
    ctx.redirect('/auth');
  });

  return router;
}
