/**
 * SWORD documents echo text the client sent (the summary of an invalid document, the user agent,
 * a doc_ID): characters XML 1.0 cannot carry (§2.2) must never make the answer ill-formed.
 */
import { expect } from 'chai';
import { errorDocument } from '../../../src/protocol/sword/error-document.js';
import { depositReceipt } from '../../../src/protocol/sword/deposit-receipt.js';
import { wellFormed } from '../../reliability/support.js';

const HOSTILE = "got '\ba\u0001a\ud800 \uffff <a> & &foo; ]]>'";
const generator = { uri: 'http://node.example/swordservice', version: '0.10.0', name: 'Learning Registry node' };

describe('unit: SWORD documents carry any client text as well-formed XML', () => {
  it('sword:error with control characters, lone surrogates and markup in the summary and user agent', () => {
    const xml = errorDocument({ uri: 'http://purl.org/net/sword/error/ErrorBadRequest', summary: HOSTILE, updated: '2026-01-01T00:00:00Z', generator, userAgent: HOSTILE, verboseDescription: HOSTILE });
    const check = wellFormed(xml);
    expect(check.ok, check.output).to.equal(true);
    expect(xml).to.include('&lt;a&gt; &amp; &amp;foo; ]]&gt;');
    expect(xml).to.include('\uFFFD');
  });

  it('deposit receipt with a hostile doc_ID and user agent', () => {
    const xml = depositReceipt({ id: HOSTILE, docId: HOSTILE, updated: '2026-01-01T00:00:00Z', author: HOSTILE, treatment: HOSTILE, noOp: true, generator, userAgent: HOSTILE });
    const check = wellFormed(xml);
    expect(check.ok, check.output).to.equal(true);
  });
});
