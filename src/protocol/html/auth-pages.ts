/** The pages of /auth (spec "Authentication", 3). Plain forms, no script; every value escaped by `html`. */
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { errorPage } from './error-page.js';
/** What the account page shows of an account (plain data: protocol/ knows no storage types). */
export interface AccountView {
  name: string;
  submitter: string;
  disabled: boolean;
  /** Set when the account has a publishing password (its hash is never shown). */
  password?: unknown;
  web?: { issuer: string };
  tokens?: { id: string; label: string; created: string }[];
}

export interface PageContext { nodeName: string; publicUrl: string }
export interface Message { kind: 'notice' | 'error'; text: string }

function message(value: Message | undefined): SafeHtml {
  if (!value) return html``;
  // role=alert / status: announced by screen readers without moving focus.
  return html`<p class="${value.kind}" role="${value.kind === 'error' ? 'alert' : 'status'}">${value.text}</p>`;
}

export function notConfiguredPage(ctx: PageContext): string {
  return page('Publishing accounts', html`
<p>This node does not manage publishing accounts on the web: no OpenID Connect identity provider is configured.</p>
<p>Ask the operator of this node for an account. (Operators: set <code>OIDC_ISSUER</code>, <code>OIDC_CLIENT_ID</code> and <code>OIDC_CLIENT_SECRET</code> to enable sign-in here.)</p>`, ctx.nodeName);
}

export function signedOutPage(ctx: PageContext, issuer: string, notice?: Message): string {
  return page('Publishing accounts', html`
${message(notice)}
<p>To publish to this node you need an account. Sign in with your identity provider to prove your e-mail address;
then set a publishing password (HTTP Basic) or issue a bearer token.</p>
<p><a class="button" href="/auth/login">Sign in with ${new URL(issuer).host}</a></p>
<p class="hint">Only an e-mail address your provider has verified can be used. It becomes your account name and your <code>identity.submitter</code>.</p>`, ctx.nodeName);
}

export function problemPage(ctx: PageContext, title: string, text: string): string {
  return errorPage(ctx.nodeName, title, text, { href: '/auth', label: 'Back to publishing accounts' });
}

function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

function passwordSection(account: AccountView, csrf: string): SafeHtml {
  const state = account.password ? html`<p>A publishing password is set.</p>` : html`<p>No publishing password is set: Basic publishing with this account is refused.</p>`;
  const revoke = account.password ? html`
<form method="post" action="/auth/password/revoke">${csrfField(csrf)}
<button type="submit" class="danger">Revoke the publishing password</button>
<p class="hint">Publishing with it is refused at once.</p>
</form>` : html``;
  return html`
<section aria-labelledby="password-heading">
<h2 id="password-heading">Publishing password</h2>
${state}
<form method="post" action="/auth/password">${csrfField(csrf)}
<label for="password">New publishing password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least 10 characters, at least 4 different ones, not containing your account name.
It <strong>must differ from your identity provider password</strong> (this node cannot see that password, so it cannot check). It is stored as a scrypt hash and never shown again.</p>
<label for="confirmation">The same password again</label>
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required minlength="10">
<button type="submit">${account.password ? 'Change the password' : 'Set the password'}</button>
</form>
${revoke}
</section>`;
}

function tokenSection(account: AccountView, csrf: string, newToken: string | undefined): SafeHtml {
  const tokens = account.tokens ?? [];
  const shown = newToken ? html`
<div class="notice" role="status"><p>Your new token (copy it now: it is never shown again):</p>
<p><code class="secret" id="new-token">${newToken}</code></p></div>` : html``;
  const rows = tokens.map((token) => html`
<tr><td>${token.label}</td><td><code>${token.id}</code></td><td>${token.created.slice(0, 10)}</td><td>
<form method="post" action="/auth/tokens/revoke">${csrfField(csrf)}<input type="hidden" name="id" value="${token.id}">
<button type="submit" class="secondary" aria-label="Revoke token ${token.label} (${token.id})">Revoke</button></form></td></tr>`);
  const table = tokens.length ? html`
<table><caption class="hint">Your tokens</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Id</th><th scope="col">Issued</th><th scope="col"><span class="hint">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>` : html`<p>You have no bearer tokens.</p>`;
  return html`
<section aria-labelledby="tokens-heading">
<h2 id="tokens-heading">Bearer tokens (OAuth 2.0)</h2>
<p>Instead of a password, publishing requests may carry <code>Authorization: Bearer TOKEN</code> (RFC 6750).</p>
${shown}
${table}
<form method="post" action="/auth/tokens">${csrfField(csrf)}
<label for="label">Label of a new token</label>
<input id="label" name="label" type="text" maxlength="60" autocomplete="off" aria-describedby="label-hint">
<p class="hint" id="label-hint">For example the name of the tool that will publish with it.</p>
<button type="submit">Issue a token</button>
</form>
</section>`;
}

export function accountPage(ctx: PageContext, account: AccountView, csrf: string, notice?: Message, newToken?: string): string {
  const disabled = account.disabled ? html`<p class="error" role="alert">The operator of this node has disabled this account: it cannot publish, and it cannot be changed here.</p>` : html``;
  return page('Your publishing account', html`
${message(notice)}
${disabled}
<section aria-labelledby="identity-heading">
<h2 id="identity-heading">Identity</h2>
<table>
<tr><th scope="row">Account name</th><td><code>${account.name}</code></td></tr>
<tr><th scope="row"><code>identity.submitter</code></th><td><code>${account.submitter}</code> <span class="hint">(written into documents you publish anonymously, with <code>submitter_type</code> <code>agent</code>)</span></td></tr>
<tr><th scope="row">Verified by</th><td>${account.web ? new URL(account.web.issuer).host : 'the node operator'}</td></tr>
</table>
</section>
${passwordSection(account, csrf)}
${tokenSection(account, csrf, newToken)}
<section aria-labelledby="use-heading">
<h2 id="use-heading">Publishing</h2>
<p><code>POST ${ctx.publicUrl}/publish</code> with HTTP Basic credentials: user <code>${account.name}</code> and your publishing password.</p>
</section>
<form method="post" action="/auth/logout">${csrfField(csrf)}<button type="submit" class="secondary">Sign out</button></form>`, ctx.nodeName);
}
