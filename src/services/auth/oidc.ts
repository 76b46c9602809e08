/**
 * Sign-in with the configured OpenID Connect provider through openid-client: authorization code
 * flow (OIDC Core 3.1) with PKCE S256 (RFC 7636), state and nonce. The provider's metadata is
 * discovered (OIDC Discovery 4) at the first sign-in, not at start-up, so a provider that is down
 * does not stop the node; a failed discovery is retried at the next sign-in.
 */
import * as client from 'openid-client';
import { onLoopback } from '../../config/settings.js';
import type { LoginState } from './session.js';

export interface OidcSettings { issuer: string; clientId: string; clientSecret: string; redirectUri: string }

/** What a completed sign-in proved (OIDC Core 5.1 standard claims). */
export interface ProvenIdentity { issuer: string; subject: string; email: string | undefined; emailVerified: boolean }

/** The provider said no (error response, bad state, replayed code...): the user can simply try again. */
export class SignInFailed extends Error {}

const TIMEOUT_SECONDS = 10;

export class OidcSignIn {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  get issuer(): string { return this.settings.issuer; }

  private config(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    const issuer = new URL(this.settings.issuer);
    // openid-client v6 refuses plain http; settings.ts allows http only when the issuer is on
    // loopback (a provider on this machine, as in the tests), and only then is it allowed here.
    const execute = issuer.protocol === 'http:' && onLoopback(issuer) ? [client.allowInsecureRequests] : [];
    const config = await client.discovery(issuer, this.settings.clientId, undefined, undefined, { execute, timeout: TIMEOUT_SECONDS });
    // RFC 8414 2 / OIDC Discovery 3: client_secret_basic is the default when the provider lists none.
    const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
    const auth = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(this.settings.clientSecret) : client.ClientSecretPost(this.settings.clientSecret);
    const configured = new client.Configuration(config.serverMetadata(), this.settings.clientId, undefined, auth);
    for (const step of execute) step(configured);
    configured.timeout = TIMEOUT_SECONDS;
    return configured;
  }

  /** The provider URL to send the browser to, and the values the callback must find again. */
  async start(expiresAt: number): Promise<{ url: URL; login: LoginState }> {
    const config = await this.config();
    const login: LoginState = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), exp: expiresAt };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(login.verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
    return { url, login };
  }

  /** Checks the callback (state, code exchange with the verifier, ID token and nonce) and reads the e-mail claims. */
  async finish(callbackQuery: string, login: LoginState): Promise<ProvenIdentity> {
    const config = await this.config();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, new URL(`${this.settings.redirectUri}?${callbackQuery}`), {
        pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce, idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) throw new SignInFailed(error.error_description ?? error.error, { cause: error });
      if (error instanceof client.ClientError) throw new SignInFailed(error.message, { cause: error });
      throw error;
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInFailed('the provider sent no ID token');
    let { email, email_verified: verified } = claims;
    // Providers may keep the e-mail claims out of the ID token and give them at UserInfo (OIDC Core 5.4).
    if (email === undefined) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      ({ email, email_verified: verified } = info);
    }
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof email === 'string' ? email : undefined,
      // Some providers send the boolean as a string; anything else is "not verified".
      emailVerified: verified === true || verified === 'true',
    };
  }
}
