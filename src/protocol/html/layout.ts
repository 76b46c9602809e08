/**
 * The page shell of the node's server-rendered pages: semantic landmarks, a skip link, visible
 * focus (WCAG 2.4.7; the outline has 4.7:1 against white, 1.4.11 asks 3:1, which the orange
 * #e07b00 it replaced missed at 2.999:1) and one static style sheet allowed by its hash, so the
 * Content Security Policy can forbid every script and every other inline style.
 */
import { createHash } from 'node:crypto';
import { html, SafeHtml } from './html.js';

const STYLE = `
body{font:1rem/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff}
header,main,footer{max-width:44rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid #ccc}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
label{display:block;font-weight:600;margin-top:.75rem}
input{font:inherit;padding:.4rem;border:1px solid #555;border-radius:3px;width:100%;max-width:24rem;box-sizing:border-box}
button,.button{font:inherit;padding:.45rem .9rem;margin-top:.75rem;border:1px solid #0b4f8a;border-radius:3px;background:#0b5fa5;color:#fff;cursor:pointer;text-decoration:none}
button{display:block}.button{display:inline-block}
caption{text-align:left}
button.secondary{background:#fff;color:#0b4f8a}
button.danger{background:#a4161a;border-color:#7a1013}
a{color:#0b4f8a}
:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.notice{border-left:4px solid #2b7a0b;background:#eef7e9;padding:.5rem 1rem}
.error{border-left:4px solid #a4161a;background:#fbeaea;padding:.5rem 1rem}
.hint{color:#444;font-size:.9rem;margin:.25rem 0}
code{font-family:ui-monospace,monospace;overflow-wrap:anywhere}.secret{word-break:break-all}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
table{border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:.25rem .75rem .25rem 0}th{white-space:nowrap}
`;

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** No scripts, no framing, forms post only to this node (CSP Level 3). */
export const PAGE_STYLE_SOURCE = `'${STYLE_HASH}'`;

export const PAGE_CSP = `default-src 'none'; style-src '${STYLE_HASH}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** `head` adds elements to the head (a page with its own style sheet or scripts sets its own CSP). */
export function page(title: string, body: SafeHtml, nodeName: string, head: SafeHtml = html``): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} – ${nodeName}</title>
<style>${new SafeHtml(STYLE)}</style>
${head}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p><strong>${nodeName}</strong></p></header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.value;
}
