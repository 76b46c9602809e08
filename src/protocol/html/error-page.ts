/** The one error page of the node's HTML (the /auth pages, /dashboard): the message, and a link back when there is a page to go back to. */
import { html } from './html.js';
import { page } from './layout.js';

export function errorPage(nodeName: string, title: string, text: string, back?: { href: string; label: string }): string {
  // role=alert: announced by screen readers without moving focus.
  return page(title, html`
<p class="error" role="alert">${text}</p>
${back ? html`<p><a href="${back.href}">${back.label}</a></p>` : html``}`, nodeName);
}
