/**
 * A real OpenID Connect provider for the tests: the certified `oidc-provider` package on
 * 127.0.0.1:0 with its development login and consent pages (any login name is an account;
 * the password is not checked). Logins starting with "unverified" have an unverified e-mail.
 * Also a fetch-based sign-in that drives those pages without a browser.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type ClientMetadata } from 'oidc-provider';

export const CLIENT_ID = 'lr-node-test';
export const CLIENT_SECRET = 'lr-node-test-client-secret-0123456789';

export interface TestProvider {
  issuer: string;
  /** Creates the provider with one client whose redirect URI is the node's /auth/callback. */
  register(redirectUri: string): Promise<void>;
  close(): Promise<void>;
}

/** E-mail claims of a login name (OIDC Core 5.1). */
export function claimsOf(login: string): { email: string; email_verified: boolean } {
  return { email: `${login}@example.org`, email_verified: !login.startsWith('unverified') };
}

/** Listens first (the node needs the issuer URL), and serves the provider once the node's URL is known. */
export async function startTestProvider(): Promise<TestProvider> {
  let handler: http.RequestListener = (_req, res) => { res.statusCode = 503; res.end(); };
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register(redirectUri) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const client: ClientMetadata = {
        client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri],
        grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
      };
      const provider = new Provider(issuer, {
        clients: [client],
        jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] },
        cookies: { keys: ['test-provider-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        pkce: { required: () => true },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
        features: { devInteractions: { enabled: true } },
        findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...claimsOf(id) }) }),
      });
      handler = provider.callback();
      return Promise.resolve();
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Cookies by name, whatever the port: enough for one browser-like client of two loopback servers. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now());
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined { return this.cookies.get(name); }
  set(name: string, value: string): void { this.cookies.set(name, value); }
  header(): string { return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '); }

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: this.header() } });
    this.store(response);
    return response;
  }
}

/** Follows redirects while `until(url)` is false; returns the response at the first URL where it holds, or the first non-redirect. */
async function follow(jar: CookieJar, start: string, until: (url: URL) => boolean, init?: RequestInit): Promise<{ url: URL; response: Response }> {
  let url = new URL(start);
  let response = await jar.fetch(url, init);
  while (response.status >= 300 && response.status < 400) {
    url = new URL(response.headers.get('location') ?? '', url);
    if (until(url)) return { url, response };
    response = await jar.fetch(url);
  }
  return { url, response };
}

async function submitInteraction(jar: CookieJar, page: { url: URL; response: Response }, fields: Record<string, string>, nodeUrl: string): Promise<{ url: URL; response: Response }> {
  const body = await page.response.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(body)?.[1];
  if (!action) throw new Error(`no form on the provider page ${page.url.href} (${page.response.status})`);
  return follow(jar, new URL(action, page.url).href, (url) => url.href.startsWith(nodeUrl), {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Signs in as `login` without a browser: /auth/login, the provider's login and consent forms,
 * then the node's /auth/callback. Returns the callback's response (302 to /auth when accepted).
 */
export async function signInWithoutBrowser(nodeUrl: string, login: string, jar = new CookieJar()): Promise<{ jar: CookieJar; callback: Response }> {
  const atNode = (url: URL): boolean => url.href.startsWith(nodeUrl);
  const loginPage = await follow(jar, `${nodeUrl}/auth/login`, atNode);
  let next = await submitInteraction(jar, loginPage, { prompt: 'login', login, password: 'provider-password' }, nodeUrl);
  if (!atNode(next.url)) next = await submitInteraction(jar, next, { prompt: 'consent' }, nodeUrl);
  if (!next.url.pathname.startsWith('/auth/callback')) throw new Error(`the provider did not send us back to the node: ${next.url.href}`);
  return { jar, callback: await jar.fetch(next.url) };
}

/** The CSRF token of the signed-in account page. */
export async function csrfOf(jar: CookieJar, nodeUrl: string): Promise<string> {
  const page = await (await jar.fetch(`${nodeUrl}/auth`)).text();
  const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('no CSRF field on /auth (not signed in?)');
  return token;
}

export async function postForm(jar: CookieJar, url: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const response = await jar.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { status: response.status, text: await response.text() };
}
