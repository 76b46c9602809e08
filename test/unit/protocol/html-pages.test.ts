/** The HTML template and the one error page (src/protocol/html), from plain data, without a node. */
import { expect } from 'chai';
import { html } from '../../../src/protocol/html/html.js';
import { errorPage } from '../../../src/protocol/html/error-page.js';
import { problemPage } from '../../../src/protocol/html/auth-pages.js';

describe('HTML pages', () => {
  it('escape every interpolated value unless it is already SafeHtml', () => {
    const name = '<script>alert("x")</script> & \'y\'';
    expect(html`<p>${name}</p>`.value).to.equal('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>');
    expect(html`<ul>${['a', html`<li>b</li>`, undefined, null, false]}</ul>`.value).to.equal('<ul>a<li>b</li></ul>');
  });

  it('the error page: title, the message as an alert, the node name, all escaped; a link back only when given', () => {
    const page = errorPage('Node <1>', 'Request failed', 'the store is <down>');
    expect(page).to.match(/^<!doctype html>/);
    expect(page).to.contain('<title>Request failed – Node &lt;1&gt;</title>');
    expect(page).to.contain('<p class="error" role="alert">the store is &lt;down&gt;</p>');
    expect(page).to.not.contain('<a href="/');
    expect(errorPage('N', 'T', 'x', { href: '/auth', label: 'Back' })).to.contain('<p><a href="/auth">Back</a></p>');
  });

  it('the /auth problem page is that error page with a link back to /auth', () => {
    expect(problemPage({ nodeName: 'N', publicUrl: 'http://n' }, 'Request refused', 'no')).to.equal(errorPage('N', 'Request refused', 'no', { href: '/auth', label: 'Back to publishing accounts' }));
  });
});
